package dev.floodgate;

import dev.floodgate.cluster.ClusterLimit;
import dev.floodgate.cluster.Lease;
import dev.floodgate.cluster.LeaseKey;
import dev.floodgate.cluster.RedisLeases;
import dev.floodgate.testkit.Await;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static dev.floodgate.ClusterGiveBackTest.admit;
import static dev.floodgate.ClusterGiveBackTest.nodeRecord;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A refill that outlasted the lease's 1 s bound (Redis stalled) and that Redis applied once it ran again leaves the
 * entry's sequence where it was ({@code LeaseFetcher.commit}, UNAVAILABLE): the grant is recorded in the bucket's
 * hash under that sequence, and the node's next request with it recovers the grant. When no check comes before the
 * lease idles for a cluster window, that next request is the idle give-back's refund, which moves the sequence on
 * and sends the refund under it. The script answered it STALE (the same seq with another operation): the give-back
 * put its tokens back and skipped the sequence, so the refill's grant (6 of the cluster's 20 tokens) was neither in
 * the node's balance nor back in the bucket. With a 4-hour window no refill makes it up for 72 minutes: other nodes
 * are refused tokens the cluster holds for nobody. Failed before the fix with the bucket holding 10 of the 16 the
 * node did not spend.
 */
class ClusterUnansweredLeaseGiveBackTest
{
    private static final long LIMIT = 20;
    /** 4 h: a token of refill every 12 minutes, none within the test's bound; the janitor reaps after a day. */
    private static final long WINDOW_MS = 4 * 3_600_000L;
    private static final long LEASE = 6; // refilled below 3

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void aGrantRedisAppliedAfterItsLeaseTimedOutGoesBackToTheBucketWhenTheIdleGiveBackTakesItsSequence()
        throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final ManualTicker ticker = new ManualTicker(System.nanoTime());
            final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("node.map")).capacity(1_000)
                .ticker(ticker)
                .limit(Action.PUBLISH, 1_000, 60_000).clusterRedisUri(redis.uri())
                .clusterLimit(Action.PUBLISH, LIMIT, WINDOW_MS).clusterLease(Action.PUBLISH, LEASE)
                .clusterFallbackLocal(Action.PUBLISH, false).build();
            try (Floodgate gate = Floodgate.open(config))
            {
                admit(gate, ticker, "bob", 1); // the first lease: 6 of 20, one spent, 5 left
                final long firstSequence = Long.parseLong(nodeRecord(redis, "bob").split(" ")[0]);
                for (int i = 0; i < 2; i++)
                {
                    assertEquals(Floodgate.ADMITTED, gate.checkLimit("bob", Action.PUBLISH)); // 3 left
                }
                redis.pause();
                try
                {
                    // 2 left: a refill of 6 starts against the stalled server
                    assertEquals(Floodgate.ADMITTED, gate.checkLimit("bob", Action.PUBLISH));
                    Await.until("the refill ended unavailable at its bound", 10,
                        () -> gate.processCluster().unavailable() > 0);
                }
                finally
                {
                    redis.resume();
                }
                Await.until("Redis ran the stalled refill", 10,
                    () -> nodeRecord(redis, "bob").startsWith((firstSequence + 1) + " L 6 6 "));
                final long spent = 4;

                // no check comes: the lease idles, and the janitor's passes give it back
                for (int pass = 0; pass < 3; pass++)
                {
                    gate.cleanup();
                    ticker.advanceMs(WINDOW_MS);
                }
                gate.cleanup();
                assertEquals("R", nodeRecord(redis, "bob").split(" ")[1], "the idle lease was given back: " +
                    nodeRecord(redis, "bob"));
                final long unused = gate.stats().cluster().tokensUnused();
                assertEquals(0, unused, "the node's balance was given back");

                // the figures the node reports (LeaseCounters keeps the given-up request, answered no more): the
                // given-up grant is neither leased nor refunded, so leased less refunded is what the node spent
                final ClusterStats.Node node = gate.stats().cluster();
                assertEquals(spent, node.tokensLeased() - node.tokensRefunded(), "leased " + node.tokensLeased() +
                    ", refunded " + node.tokensRefunded());
                assertEquals(spent, gate.processCluster().tokensLeased() - gate.processCluster().tokensRefunded());

                final long bucket = leaseAll(redis, "bob");
                assertEquals(LIMIT - spent, bucket + unused, "the node spent " + spent + " of the cluster's " +
                    LIMIT + ": every other token is back in the bucket or the node's balance, the timed-out " +
                    "refill's grant included (the bucket holds " + bucket + ", the node " + unused + ")");
            }
        }
    }

    /** @return what the bucket of (PUBLISH, identifier) holds now, leased whole by another node. */
    private static long leaseAll(final LocalRedis redis, final String identifier) throws InterruptedException
    {
        try (RedisLeases other = RedisLeases.open(redis.uri(), Duration.ofSeconds(2)))
        {
            assertTrue(other.awaitConnected(Duration.ofSeconds(10)), "connected");
            final Lease lease = other.lease(LeaseKey.of(Action.PUBLISH, identifier), new ClusterLimit(LIMIT,
                WINDOW_MS), "other", 1, LIMIT);
            assertEquals(Lease.Outcome.APPLIED, lease.outcome());
            return lease.tokens();
        }
    }
}
