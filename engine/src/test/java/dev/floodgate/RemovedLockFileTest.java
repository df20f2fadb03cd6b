package dev.floodgate;

import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.store.Entry;
import dev.floodgate.store.SlotLocks;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.KeyOutsideHeader;
import dev.floodgate.testkit.SegmentHolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Liveness lives in {@code <table>.lock}, a file beside the table that anything removing files by path can remove
 * (an operator's {@code rm}, a tmp cleaner, systemd's {@code RemoveIPC}). The live processes keep their slot locks on
 * the removed file. The next JVM made a new, empty lock file at the path, in which nobody was alive, and took over a
 * live (stopped) process's segment guard: two writers inside one Chronicle segment (found by review: its checks were
 * admitted, one guard repair). The table now records which lock file its processes use, and a JVM with another one
 * attaches only when the table names no attached process.
 */
@Timeout(180)
class RemovedLockFileTest
{
    @TempDir
    Path dir;

    private static FloodgateConfig config(final Path file)
    {
        return FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build();
    }

    @Test
    void shouldRefuseToAttachBesideLiveProcessesWhoseLockFileWasRemoved() throws Exception
    {
        final Path file = dir.resolve("t.map");
        Floodgate.open(config(file)).close();
        final int segment = KeyOutsideHeader.find(file, Entry.KIND_WINDOW, Action.PUBLISH, "id-").segment();
        // a live broker (attached) stopped inside an operation on that segment: it holds the segment's guard
        try (ChildJvm holder = ChildJvm.start(SegmentHolder.class, file.toString(), Integer.toString(segment),
            "attached", "forever"))
        {
            holder.awaitLine("HELD", 120);
            Files.delete(SlotLocks.lockFileOf(file)); // e.g. RemoveIPC, or `rm` of what looks like a stale lock
            final FloodgateFileException refused = assertThrows(FloodgateFileException.class,
                () -> Floodgate.open(config(file)).close());
            assertTrue(refused.getMessage().contains("is not the lock file") &&
                refused.getMessage().contains("a process that maps the table holds a lock on the removed one"), refused.getMessage());
            try (FloodgateReader reader = FloodgateReader.open(file))
            {
                assertEquals(0, reader.counters().guardRepairs(), "the live holder's guard was not taken over");
            }
        }
    }

    @Test
    void shouldAttachWithANewLockFileWhenNoProcessIsAttached() throws Exception
    {
        final Path file = dir.resolve("t.map");
        try (Floodgate first = Floodgate.open(config(file)))
        {
            assertEquals(Floodgate.ADMITTED, first.checkLimit("alice", Action.PUBLISH));
        }
        Files.delete(SlotLocks.lockFileOf(file)); // a tmp cleaner, every process closed
        try (Floodgate next = Floodgate.open(config(file)))
        {
            assertEquals(2, next.probe("alice", Action.PUBLISH).remaining(), "the same table, its state kept");
        }
    }
}
