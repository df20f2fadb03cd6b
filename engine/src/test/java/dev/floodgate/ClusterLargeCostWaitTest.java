package dev.floodgate;

import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cluster refusal of a cost above half a lease, while the node's lease is marked drained, says when the cluster's
 * bucket holds the cost, not when it holds half a lease (the mark's end, when the node asks again): a check of 900
 * of 1,000 a minute (lease 100) after a drain was told about 3 s at each retry, for a minute (NOTES, the cluster's
 * "What is left"; failed before with a retry-after under 3,000 ms).
 */
@Timeout(120)
class ClusterLargeCostWaitTest
{
    private static final long LIMIT = 1_000;
    private static final long WINDOW_MS = 60_000;
    /** The fallback's retry-after (no lease within a check's wait on a loaded host), told apart from the cluster's. */
    private static final long FALLBACK_MS = 7;

    @TempDir
    Path dir;

    @Test
    void aLargeCostRefusedByADrainedClusterIsToldWhenItsCostIsBack() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); Floodgate gate = Floodgate.open(ClusterKit.publishNode(
            dir.resolve("node.map"), redis.uri(), LIMIT, WINDOW_MS, 100).clusterRetryAfterMs(FALLBACK_MS).build()))
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (gate.checkLimitInCaller("big", Action.PUBLISH, LIMIT) != Floodgate.ADMITTED) // the whole bucket
            {
                assertTrue(System.nanoTime() - deadline < 0, "the bucket's 1,000 admitted within 30 s");
                Thread.sleep(20);
            }
            long retryAfter;
            long checkMs; // the check's own time, which can lengthen its answer (below)
            while (true)
            {
                final long start = System.nanoTime();
                retryAfter = gate.checkLimitInCaller("big", Action.PUBLISH, 900);
                checkMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                if (retryAfter != FALLBACK_MS)
                {
                    break;
                }
                assertTrue(System.nanoTime() - deadline < 0, "a lease answered within 30 s");
                Thread.sleep(20);
            }
            final long perToken = WINDOW_MS / LIMIT;
            // What the bucket holds meanwhile, and the node's balance, shorten it: by a token per 60 ms of the test.
            // The check reads its clock before the drained mark, so a lease committed between the two (the check's
            // thread descheduled there, on a loaded host) lengthens it by that moment, within the check's time.
            assertTrue(retryAfter > 900 * perToken / 2 && retryAfter <= 900 * perToken + checkMs + 1, "900 tokens at " +
                LIMIT + " a minute, refused with a retry-after of " + retryAfter + " ms (the check took " + checkMs +
                " ms)");
        }
    }
}
