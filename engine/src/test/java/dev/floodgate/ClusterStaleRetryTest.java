package dev.floodgate;

import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Review of the lease protocol: a refill that outlasted the lease's 1 s bound (Redis stalled) but that Redis applied
 * afterwards leaves the entry's sequence where it was ({@code LeaseFetcher.commit}, UNAVAILABLE), so the node's next
 * request reuses it. The refill asked for a lease ({@code leaseSize}); a check whose weighted cost is above the lease
 * asks for {@code max(cost, lease)} with that same sequence ({@code ClusterGate.whenShort}), which the script answers
 * STALE ("the same seq with another request"). The fetcher only skips the sequence, and the check is refused with the
 * retry-after and counted as refused by the cluster, although Redis is up and its bucket holds 980 of 1,000
 * tokens; the 10 tokens the first attempt took are lost to the node.
 */
@Timeout(120)
class ClusterStaleRetryTest
{
    private static final long LEASE = 10;

    @TempDir
    Path dir;

    @Test
    void aWeightedCheckAfterATimedOutRefillRedisAppliedIsAdmittedWhileTheBucketHoldsTokens() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("node.map")).capacity(1_000)
                .limit(Action.PUBLISH, 1_000_000, 60_000).clusterRedisUri(redis.uri())
                .clusterLimit(Action.PUBLISH, 1_000, 86_400_000).clusterLease(Action.PUBLISH, LEASE)
                .clusterFallbackLocal(Action.PUBLISH, false).build();
            try (Floodgate gate = Floodgate.open(config))
            {
                admitOnce(gate); // the first lease: 10, one spent, 9 left
                for (int i = 0; i < 4; i++)
                {
                    assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH)); // 5 left
                }
                redis.pause();
                try
                {
                    for (int i = 0; i < 5; i++)
                    {
                        // 4 left starts a refill against the stopped server; the balance runs dry
                        assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH));
                    }
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (gate.processCluster().unavailable() == 0)
                    {
                        assertTrue(System.nanoTime() - deadline < 0, "the refill ended unavailable at its bound");
                        Thread.sleep(10);
                    }
                }
                finally
                {
                    redis.resume(); // Redis now runs the refill it had received: 10 more tokens taken for the node
                }
                Thread.sleep(500); // applied by now, and this JVM's 2 x 50 ms of answering the fallback are over
                final long refusedBefore = gate.processCluster().checks().get(Action.PUBLISH).refused();

                final long answer = gate.checkLimit("alice", Action.PUBLISH, 2 * LEASE);

                assertEquals(0, gate.processCluster().checks().get(Action.PUBLISH).refused() - refusedBefore,
                    "no check refused by the cluster: its bucket holds 980 of 1,000 tokens and Redis is up; " +
                        "answer " + answer);
                assertEquals(Floodgate.ADMITTED, answer, "a cost of 20 with 980 tokens in the cluster's bucket");
            }
        }
    }

    private static void admitOnce(final Floodgate gate) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (gate.checkLimit("alice", Action.PUBLISH) != Floodgate.ADMITTED)
        {
            assertTrue(System.nanoTime() - deadline < 0, "the first lease landed within 30 s");
            Thread.sleep(10);
        }
    }
}
