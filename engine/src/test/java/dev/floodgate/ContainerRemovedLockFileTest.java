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
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RemovedLockFileTest, with the JVM starting beside the removal in a container: a pid namespace with its own /proc
 * (the README's "containers of one pod share /dev/shm but not pids"). The kernel's /proc/locks shows a pid namespace
 * only its own processes' locks, so a pairing that asked it alone read "no lock held" on the removed lock file while
 * a live broker held its slot lock there, re-paired the table with a new lock file in which nobody was alive,
 * attached, and took over the live (stopped) broker's segment guard: two writers in one Chronicle segment (found by
 * review). The broker's heartbeat says it lives: the open is refused.
 */
@Timeout(180)
class ContainerRemovedLockFileTest
{
    @TempDir
    Path dir;

    private static FloodgateConfig config(final Path file)
    {
        return FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build();
    }

    /** Child, in its own pid namespace and /proc: opens the table and checks the identifier on the held segment. */
    public static final class Starter
    {
        public static void main(final String[] args)
        {
            try (Floodgate gate = Floodgate.open(config(Path.of(args[0]))))
            {
                System.out.println("ATTACHED check=" + gate.checkLimitInCaller(args[1], Action.PUBLISH) +
                    " repairs=" + gate.stats().guardRepairs());
            }
            catch (final FloodgateFileException ex)
            {
                System.out.println("REFUSED " + ex.getMessage());
            }
            System.out.flush();
        }
    }

    @Test
    void shouldRefuseToAttachFromAnotherPidNamespaceBesideLiveProcessesWhoseLockFileWasRemoved() throws Exception
    {
        final Path file = dir.resolve("t.map");
        Floodgate.open(config(file)).close();
        final KeyOutsideHeader held = KeyOutsideHeader.find(file, Entry.KIND_WINDOW, Action.PUBLISH, "id-");
        final String user = held.key();
        final int segment = held.segment();
        // a live broker (attached) stopped inside an operation on that segment: it holds the segment's guard
        try (ChildJvm holder = ChildJvm.start(SegmentHolder.class, file.toString(), Integer.toString(segment),
            "attached", "forever"))
        {
            holder.awaitLine("HELD", 120);
            Files.delete(SlotLocks.lockFileOf(file)); // e.g. RemoveIPC, or `rm` of what looks like a stale lock
            try (ChildJvm starter = ChildJvm.startWrapped(List.of("unshare", "--pid", "--fork", "--mount-proc",
                "--kill-child"), Starter.class, file.toString(), user))
            {
                starter.awaitExit(120);
                final String line = starter.transcript().lines()
                    .filter(l -> l.startsWith("ATTACHED") || l.startsWith("REFUSED")).findFirst().orElse("nothing");
                try (FloodgateReader reader = FloodgateReader.open(file))
                {
                    assertEquals(0, reader.counters().guardRepairs(),
                        "the live holder's guard was taken over; the starter said: " + line);
                }
                assertTrue(line.startsWith("REFUSED"), "the starter in another pid namespace said: " + line);
            }
        }
    }
}
