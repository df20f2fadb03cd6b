package dev.floodgate;

import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.SlotLocks;
import dev.floodgate.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The JVM's one lock-file handle was keyed by {@code toAbsolutePath()}, which keeps "." and ".." (and symlinks).
 * Two spellings of one table gave two channels on one lock file, and closing either dropped every fcntl lock of
 * the process on that file: the other, still open, instance then read as dead to every other process, which
 * claimed its slot (and would take its guards over). Found by review; both fail before.
 */
@Timeout(120)
class LockFileSpellingTest
{
    @TempDir
    Path dir;

    /** Child: claims a slot of the table and prints which. */
    public static final class ClaimSlot
    {
        public static void main(final String[] args)
        {
            try (QuotaTable table = QuotaTable.open(Path.of(args[0]), 1_000, 2, false, System.nanoTime()))
            {
                System.out.println("SLOT " + SlotLocks.slotOf(table.owner()));
            }
        }
    }

    @Test
    void shouldKeepAnOpenInstancesSlotWhenAnotherSpellingOfThePathIsClosed() throws Exception
    {
        final Path file = dir.resolve("t.map");
        final Path sameFile = dir.resolve(".").resolve("t.map"); // another spelling of the same file
        try (QuotaTable a = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            final int slotA = SlotLocks.slotOf(a.owner());
            QuotaTable.open(sameFile, 1_000, 2, false, System.nanoTime()).close();
            try (ChildJvm child = ChildJvm.start(ClaimSlot.class, file.toString()))
            {
                final String line = child.awaitLine("SLOT", 60);
                // a is open and alive: its slot must not be handed to another process
                assertEquals(false, line.equals("SLOT " + slotA),
                    "another process claimed slot " + slotA + " of a live, open instance: " + line);
            }
        }
    }

    @Test
    void shouldKeepAnOpenInstancesSlotWhenAReaderOfAnotherSpellingCountsProcesses() throws Exception
    {
        final Path file = dir.resolve("t.map");
        final Path sameFile = dir.resolve(".").resolve("t.map");
        try (Floodgate broker = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build()))
        {
            final int slotA = 0; // the first process on a new lock file
            try (dev.floodgate.reader.FloodgateReader reader = dev.floodgate.reader.FloodgateReader.open(sameFile))
            {
                assertEquals(1, reader.attachedProcesses()); // a dashboard in the broker's JVM
            }
            try (ChildJvm child = ChildJvm.start(ClaimSlot.class, file.toString()))
            {
                final String line = child.awaitLine("SLOT", 60);
                assertEquals(false, line.equals("SLOT " + slotA),
                    "another process claimed slot " + slotA + " of a live, open instance: " + line);
            }
        }
    }
}
