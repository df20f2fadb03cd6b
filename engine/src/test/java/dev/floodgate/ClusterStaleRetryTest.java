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
 * A refill that outlasted the lease's 1 s bound (Redis stalled) but that Redis applied afterwards leaves the entry's
 * sequence where it was ({@code LeaseFetcher.commit}, UNAVAILABLE), so the node's next request reuses it. The refill
 * asked for a lease ({@code leaseSize}); a check whose weighted cost is above the lease asks for
 * {@code max(cost, lease)} with that same sequence ({@code LeaseWait.whenShort}). The script answered that STALE
 * ("the same seq with another request"), the fetcher skipped the sequence, and the check was refused with the
 * retry-after and counted as refused by the cluster although Redis was up and its bucket held 980 of 1,000 tokens;
 * the 10 tokens the first attempt took were lost to the node. Now the script replays the sequence's one grant, the
 * node commits it, and the check asks again under the next sequence within its wait. Failed before the fix (one
 * cluster refusal, the answer a retry-after of 100 ms). The engine runs on a {@link ManualTicker}: a check then
 * waits for its lease until the source's own 1 s bound, however slow a loaded host makes the round trip (on the
 * system ticker, beside four CPU hogs, the check's 50 ms ran out first and it answered the fallback).
 */
class ClusterStaleRetryTest
{
    private static final long LEASE = 10;

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void aWeightedCheckAfterATimedOutRefillRedisAppliedIsAdmittedWhileTheBucketHoldsTokens() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final ManualTicker ticker = new ManualTicker(System.nanoTime());
            final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("node.map")).capacity(1_000)
                .ticker(ticker)
                .limit(Action.PUBLISH, 1_000_000, 60_000).clusterRedisUri(redis.uri())
                .clusterLimit(Action.PUBLISH, 1_000, 86_400_000).clusterLease(Action.PUBLISH, LEASE)
                .clusterFallbackLocal(Action.PUBLISH, false).build();
            try (Floodgate gate = Floodgate.open(config))
            {
                ClusterGiveBackTest.admit(gate, ticker, "alice", 1); // the first lease: 10, one spent, 9 left
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
                    redis.resume(); // Redis runs the refill it had received (10 more tokens taken for the node)
                }                   // before the next request on the connection
                ticker.advanceMs(100); // this JVM's 2 x 50 ms of answering the fallback are over
                final long refusedBefore = gate.processCluster().checks().get(Action.PUBLISH).refused();

                final long answer = gate.checkLimit("alice", Action.PUBLISH, 2 * LEASE);

                assertEquals(0, gate.processCluster().checks().get(Action.PUBLISH).refused() - refusedBefore,
                    "no check refused by the cluster: its bucket holds 980 of 1,000 tokens and Redis is up; " +
                        "answer " + answer);
                assertEquals(Floodgate.ADMITTED, answer, "a cost of 20 with 980 tokens in the cluster's bucket");
                assertEquals(10 + 10 + 2 * LEASE, gate.processCluster().tokensLeased(),
                    "tokens leased: the first lease, the timed-out refill's grant replayed, and the check's own ask");
            }
        }
    }
}
