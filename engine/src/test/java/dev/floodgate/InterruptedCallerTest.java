package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broker calls Floodgate from a thread whose interrupt status is set (a pooled thread after a cancelled task, or
 * code that restores the flag, as a metrics scrape or an admin endpoint may run on). Every call answers as it would
 * on any thread, and the caller keeps its status. Before, {@code stats()} and {@code topBlocked} failed with
 * "cannot be read: null": the reader's {@code FileChannel.size} and {@code map} are interruptible, so the set flag
 * closed the channel under them (found while testing the guard's wait).
 */
@Timeout(120)
class InterruptedCallerTest
{
    @TempDir
    Path dir;

    @Test
    void shouldAnswerEveryCallOnAnInterruptedThreadAndKeepItsStatus()
    {
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("interrupted.map")).capacity(1_000)
            .limit(Action.PUBLISH, 2, FloodgateConfig.MAX_WINDOW_MS).build();
        Thread.currentThread().interrupt();
        try
        {
            try (Floodgate gate = Floodgate.open(config))
            {
                assertInterrupted("open");
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH));
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH));
                assertTrue(gate.checkLimit("alice", Action.PUBLISH) > 0, "the third of a limit of 2");
                assertInterrupted("checkLimit");
                assertEquals(0, gate.probe("alice", Action.PUBLISH).remaining());
                assertInterrupted("probe");
                final Stats stats = gate.stats();
                assertInterrupted("stats");
                assertEquals(1, stats.buckets(), "buckets in " + stats);
                final List<BlockedEntry> top = gate.topBlocked(Action.PUBLISH, 5);
                assertInterrupted("topBlocked");
                assertEquals(1, top.size(), "blocked identifiers: " + top);
                assertEquals(1, gate.blockedCount("alice", Action.PUBLISH));
                assertInterrupted("blockedCount");
                gate.reset("alice", Action.PUBLISH);
                assertInterrupted("reset");
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH), "after the reset");
                gate.cleanup();
                assertInterrupted("cleanup");
            }
            assertInterrupted("close");
        }
        finally
        {
            Thread.interrupted();
        }
    }

    private static void assertInterrupted(final String call)
    {
        assertTrue(Thread.currentThread().isInterrupted(), call + " cleared the caller's interrupt status");
    }
}
