package dev.floodgate.tools;

import com.sun.jdi.ThreadReference;
import dev.floodgate.testkit.DebuggedChild;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LoadRun's stop ran observer.stopped() on whichever thread won the compare-and-set, and a shutdown hook that lost
 * it returned at once, so the JVM halted under the winner: a Ctrl-C while the normal path was deleting the run's
 * cluster buckets (seconds for a large --keys) cut the deletion off and left the buckets in Redis (found by review;
 * failed before). Bench runs under the debugger, which holds the command's thread at the entry of the deletion,
 * inside stopped() and its monitor: while it is held, SIGTERM must not end the JVM (its shutdown hook is seen
 * blocked on the once-flag's monitor), and once let go every bucket is gone.
 *
 * <p>The deletion is held before it sends anything to Redis. It was held in a proxy that kept its UNLINK from Redis,
 * so the CLI's own 10 s command timeout ran meanwhile and was the test's window: a host slow for 10 s between the
 * UNLINK and the hook's block (tried: 11 s before the SIGTERM) timed the deletion out and the test failed though bench
 * was right ("Command timed out after 10 second(s)"). And before that, a fixed 1.5 s stood for the hook's wait and,
 * on a loaded host, could end before the JVM had even begun its shutdown, so the test passed without testing.
 */
class BenchStopRaceTest
{
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void ctrlCWhileTheNormalPathDeletesTheBucketsDoesNotCutTheDeletionOff() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start();
             DebuggedChild bench = DebuggedChild.start(FloodgateCli.class,
                 List.of("bench", "--processes", "1", "--threads", "1", "--keys", "2", "--duration", "1s",
                     "--file", dir.resolve("bench.map").toString(), "--cluster-redis", redis.uri(),
                     "--cluster-limit", "100", "--cluster-lease", "10")))
        {
            try
            {
                // the run ended normally and its deletion (the normal path's stopped()) begins: its thread stays held
                // there while the rest of the child runs on
                final ThreadReference deleting = bench.runUntilEntry("dev.floodgate.tools.cluster.ClusterBuckets",
                    "delete", hit -> true).thread();
                deleting.suspend();
                bench.vm().resume();
                assertFalse(redis.commands().keys("floodgate:publish:bench-*").isEmpty(), "no buckets to delete");
                bench.process().destroy(); // SIGTERM, as Ctrl-C's SIGINT
                // the shutdown hook reaped the workers (gone already) and came to the deletion: it waits for the
                // command's thread to finish it, on the once-flag's monitor, or (the bug) returns and the JVM halts
                final boolean hookWaited = bench.awaitBlockedOnMonitor("floodgate-reaper",
                    "java.util.concurrent.atomic.AtomicBoolean", 60);
                if (hookWaited)
                {
                    deleting.resume();
                }
                assertTrue(bench.process().waitFor(60, TimeUnit.SECONDS), "bench did not stop");
                assertTrue(hookWaited, "the JVM halted while stopped() was deleting the run's buckets on the " +
                    "command's thread (the shutdown hook lost the compare-and-set and returned at once): " +
                    bench.transcript());
                assertEquals(List.of(), redis.commands().keys("floodgate:*"), "buckets left in Redis: " +
                    bench.transcript());
            }
            finally
            {
                bench.process().descendants().forEach(ProcessHandle::destroyForcibly);
            }
        }
    }
}
