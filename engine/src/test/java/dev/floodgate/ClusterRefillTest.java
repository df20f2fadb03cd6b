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
 * The refill threshold follows what the node spends while a refill is on the wire: once a refill's flight saw the
 * balance run dry, the next refill starts at the first spend below a whole lease instead of below half a lease, so
 * at that rate and latency the balance no longer runs out. Redis is stopped (SIGSTOP) while the node spends its
 * last tokens, which stands in for a round trip slower than the spending, and resumed within the lease's 1 s bound.
 */
@Timeout(120)
class ClusterRefillTest
{
    private static final long LEASE = 10;

    @TempDir
    Path dir;

    @Test
    void aRefillThatSawTheBalanceRunDryMakesTheNextOneStartAtTheFirstSpend() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("node.map")).capacity(1_000)
                .limit(Action.PUBLISH, 1_000_000, 60_000).clusterRedisUri(redis.uri())
                .clusterLimit(Action.PUBLISH, 1_000_000, 60_000).clusterLease(Action.PUBLISH, LEASE)
                .clusterFallbackLocal(Action.PUBLISH, false).build();
            try (Floodgate gate = Floodgate.open(config))
            {
                admitOnce(gate); // the first lease: 10, one spent
                final long first = redis.scriptCalls(); // 1, or more if a cold lease outlasted its 1 s bound
                for (int i = 0; i < 4; i++)
                {
                    assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH)); // 5 left
                }
                assertEquals(first, redis.scriptCalls(), "no refill while half a lease is left");
                redis.pause();
                try
                {
                    for (int i = 0; i < 5; i++)
                    {
                        // the first (4 left) starts the refill, which waits on the stopped server; all 5 are spent
                        assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH));
                    }
                }
                finally
                {
                    redis.resume();
                }
                awaitLeased(gate, 2 * LEASE); // the refill landed on an empty balance: 10
                final long calls = redis.scriptCalls();
                assertEquals(first + 1, calls, "one refill");

                assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH)); // 9 left
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (redis.scriptCalls() == calls)
                {
                    assertTrue(System.nanoTime() - deadline < 0, "the next refill started at 9 of 10 left, as " +
                        "the last one's flight ran the balance dry (before: only below half a lease)");
                    Thread.sleep(10);
                }
                awaitLeased(gate, 3 * LEASE);
            }
        }
    }

    private static void admitOnce(final Floodgate gate) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (gate.checkLimit("alice", Action.PUBLISH) != Floodgate.ADMITTED)
        {
            assertTrue(System.nanoTime() - deadline < 0, "the first lease landed within 30 s");
            Thread.sleep(10); // a cold lease that outlasted a check's 50 ms: the next check finds it
        }
    }

    private static void awaitLeased(final Floodgate gate, final long tokens) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (gate.processCluster().tokensLeased() < tokens)
        {
            assertTrue(System.nanoTime() - deadline < 0, "leased " + tokens + " within 10 s: " +
                gate.processCluster());
            Thread.sleep(10);
        }
        assertEquals(tokens, gate.processCluster().tokensLeased());
    }
}
