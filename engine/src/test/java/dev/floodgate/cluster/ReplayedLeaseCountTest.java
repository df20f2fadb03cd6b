package dev.floodgate.cluster;

import dev.floodgate.Action;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lease whose first attempt Redis applied but answered after the client's bound (a stalled or loaded Redis) ends
 * UNAVAILABLE, and the engine retries it with the same sequence ({@code LeaseFetcher.commit} leaves the sequence
 * where it was), which Redis answers REPLAYED with the first grant. {@link LeaseCounters} counted tokens leased for
 * APPLIED answers only ("a replayed answer is not counted again"), but here the first answer never reached the
 * client: the caller got 10 tokens the counters never showed. Failed before the fix with 1 instead of 11.
 */
class ReplayedLeaseCountTest
{
    private static final ClusterLimit LIMIT = new ClusterLimit(1_000, 86_400_000);
    private static final LeaseKey KEY = LeaseKey.of(Action.PUBLISH, "late-answer");

    @Test
    @Timeout(60)
    void tokensALateFirstAttemptGrantedAndItsRetryReplayedAreCountedAsLeased() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start();
             RedisLeases leases = RedisLeases.open(redis.uri(), Duration.ofMillis(200)))
        {
            assertTrue(leases.awaitConnected(Duration.ofSeconds(10)));
            final Lease.Outcome firstLease = answered(() -> leases.lease(KEY, LIMIT, "n", 1, 1)).outcome();
            assertTrue(firstLease == Lease.Outcome.APPLIED || firstLease == Lease.Outcome.REPLAYED, firstLease::name);

            redis.pause(); // a stalled Redis: the request reaches it and is applied once it runs again
            final Lease first;
            try
            {
                first = leases.leaseAsync(KEY, LIMIT, "n", 2, 10).toCompletableFuture().get(5, TimeUnit.SECONDS);
            }
            finally
            {
                redis.resume();
            }
            assertEquals(Lease.Outcome.UNAVAILABLE, first.outcome(), "the first attempt outlasted the bound");
            // Redis runs the queued request: 10 tokens taken for node n, seq 2 (its record says so)
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!String.valueOf(redis.commands().hget(KEY.toString(), "n:n")).startsWith("2 "))
            {
                assertTrue(System.nanoTime() - deadline < 0, "Redis ran the stalled request within 10 s: " +
                    redis.commands().hgetall(KEY.toString()));
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }

            final Lease retry = answered(() -> leases.lease(KEY, LIMIT, "n", 2, 10));
            assertEquals(Lease.Outcome.REPLAYED, retry.outcome(), "the retry recovers the first grant");
            assertEquals(10, retry.tokens());
            final long counted = leases.counters().tokensLeased();
            // the caller holds 1 + 10 tokens granted by the cluster; the bucket lost exactly 11
            assertEquals(1_000 - 11, answered(() -> leases.lease(KEY, LIMIT, "other", 1, 1_000)).tokens(),
                "the bucket gave out 11");
            assertEquals(11, counted,
                "tokens leased: what the node received from the cluster (1, then 10 through a replay)");
        }
    }

    /**
     * The call's answer, sent again under its number while the client's bound passes without one: 200 ms, short for
     * the stall above, which a round trip beside CPU hogs can pass too. The script replays a request it applied, so
     * a resend is the first one's answer late, never a second grant, and the client counts the tokens of a request
     * once (its first answer, or the replay of one it never heard), so the counts judged stay exact.
     */
    private static Lease answered(final Call call) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        Lease lease = call.send();
        while (lease.outcome() == Lease.Outcome.UNAVAILABLE && System.nanoTime() - deadline < 0)
        {
            lease = call.send();
        }
        return lease;
    }

    /** One lease call of the test's client. */
    @FunctionalInterface
    private interface Call
    {
        Lease send() throws InterruptedException;
    }
}
