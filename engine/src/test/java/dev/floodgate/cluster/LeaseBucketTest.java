package dev.floodgate.cluster;

import dev.floodgate.Action;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bucket as the nodes see it, against a real redis-server: what a lease grants, what a retry and a refund do,
 * that buckets are separate and expire. Every call here has a 2 s bound: these tests judge the script, not the
 * timeouts (RedisOutageTest does).
 */
@Timeout(120)
class LeaseBucketTest
{
    private static final ClusterLimit TEN_PER_HOUR = new ClusterLimit(10, 3_600_000);
    private static LocalRedis redis;
    private static RedisLeases leases;
    private long seq;

    @BeforeAll
    static void startRedis() throws Exception
    {
        redis = LocalRedis.start();
        leases = RedisLeases.open(redis.uri(), Duration.ofSeconds(2));
        assertTrue(leases.awaitConnected(Duration.ofSeconds(10)), "connected to " + redis.uri());
    }

    @AfterAll
    static void stopRedis() throws Exception
    {
        if (leases != null)
        {
            leases.close();
        }
        if (redis != null)
        {
            redis.close();
        }
    }

    @BeforeEach
    void emptyRedis() throws Exception
    {
        redis.commands().flushall();
    }

    @Test
    void aNewBucketIsFullAndGrantsAtMostItsLimit()
    {
        final LeaseKey key = LeaseKey.of(Action.AUTH, "10.0.0.1");
        final Lease first = lease(key, TEN_PER_HOUR, "a", 25);
        assertEquals(Lease.Outcome.APPLIED, first.outcome());
        assertEquals(10, first.tokens(), "a bucket never used is full: the limit, no more");
        assertEquals(360_000, first.waitMs(), "an empty bucket of 10 per hour has its next token in 6 minutes");
        assertEquals(0, lease(key, TEN_PER_HOUR, "b", 1).tokens(), "another node finds it empty");
    }

    @Test
    void theBucketRefillsAtTheLimitPerWindowInTheServersTime() throws Exception
    {
        final ClusterLimit tenPerSecond = new ClusterLimit(10, 1_000);
        final LeaseKey key = LeaseKey.of(Action.PUBLISH, "alice");
        final Lease drained = lease(key, tenPerSecond, "a", 10);
        assertEquals(10, drained.tokens());
        Thread.sleep(350); // real time passing on Redis's clock (the script reads TIME): the refill measured
        final Lease later = lease(key, tenPerSecond, "a", 10);
        final long elapsedMs = later.serverTimeMs() - drained.serverTimeMs();
        assertEquals(Math.min(10, elapsedMs * 10 / 1_000), later.tokens(),
            "a token per 100 ms of server time, exactly: " + elapsedMs + " ms elapsed");
    }

    @Test
    void aRetryWithTheSameSeqReturnsTheSameGrantAndTakesNothingMore()
    {
        final LeaseKey key = LeaseKey.of(Action.AUTH, "10.0.0.2");
        final long leasedBefore = leases.counters().tokensLeased();
        final Lease first = leases.lease(key, TEN_PER_HOUR, "a", 7, 4);
        assertEquals(new Lease(Lease.Outcome.APPLIED, 4, 0, first.serverTimeMs(), 4), first);
        final Lease retry = leases.lease(key, TEN_PER_HOUR, "a", 7, 4);
        assertEquals(Lease.Outcome.REPLAYED, retry.outcome());
        assertEquals(4, retry.tokens(), "the retry gets the first answer");
        assertEquals(Lease.Outcome.STALE, leases.lease(key, TEN_PER_HOUR, "a", 6, 4).outcome(), "an older seq");
        assertEquals(0, leases.lease(key, TEN_PER_HOUR, "a", 6, 4).tokens());
        final Lease otherAmount = leases.lease(key, TEN_PER_HOUR, "a", 7, 5);
        assertEquals(Lease.Outcome.REPLAYED, otherAmount.outcome(),
            "the same seq with another amount is a retry answered with the seq's one grant");
        assertEquals(4, otherAmount.tokens(), "the first grant, nothing taken for the new amount");
        assertEquals(4, otherAmount.asked(), "and what its request asked");
        assertEquals(6, lease(key, TEN_PER_HOUR, "b", 100).tokens(), "only the first four were ever taken");
        assertEquals(4 + 6, leases.counters().tokensLeased() - leasedBefore,
            "the counters count what was applied, once");
    }

    /**
     * A node refunds under a seq only once it has moved its own past it, and commits a lease's grant only by moving
     * its seq on from the lease's: a refund under the seq of its last lease says that lease's answer never reached
     * it and never will (lost to the bound, and the give-back came before any retry). Answered stale, as it was
     * until a review found it, the grant was lost to every node ({@code ClusterUnansweredLeaseGiveBackTest}); it
     * now goes back to the bucket with the refund. The seq is then the refund's: a retried refund is replayed, a
     * late lease under it is stale, and neither moves a token.
     */
    @Test
    void aRefundUnderTheSeqOfTheNodesLastLeaseGivesThatLeasesGrantBackWithItsTokens()
    {
        final LeaseKey key = LeaseKey.of(Action.PUBLISH, "given-up");
        assertEquals(5, lease(key, TEN_PER_HOUR, "b", 5).tokens()); // another node's: 5 left
        assertEquals(Lease.Outcome.APPLIED, leases.lease(key, TEN_PER_HOUR, "a", 7, 3).outcome()); // 2 left
        final long refundedBefore = leases.counters().tokensRefunded();

        final Lease refund = leases.refund(key, TEN_PER_HOUR, "a", 7, 2); // 2 the node held from earlier leases
        assertEquals(Lease.Outcome.APPLIED, refund.outcome(), "a refund under the lease's seq gives the lease up");
        assertEquals(2, refund.tokens(), "the refund's own tokens");
        assertEquals(2, leases.counters().tokensRefunded() - refundedBefore, "what the node gave back, counted");
        assertEquals(Lease.Outcome.REPLAYED, leases.refund(key, TEN_PER_HOUR, "a", 7, 2).outcome(),
            "a retried refund gives nothing twice");
        assertEquals(Lease.Outcome.STALE, leases.lease(key, TEN_PER_HOUR, "a", 7, 3).outcome(),
            "a late lease under the seq takes nothing: the seq is the refund's now");
        assertEquals(Lease.Outcome.STALE, leases.refund(key, TEN_PER_HOUR, "a", 6, 2).outcome(), "an older seq");
        assertEquals(2 + 3 + 2, lease(key, TEN_PER_HOUR, "c", 100).tokens(),
            "the bucket holds what was left, the given-up grant and the refund, once");
    }

    @Test
    void refundsComeBackButNeverAboveTheCapacity()
    {
        final LeaseKey key = LeaseKey.of(Action.DASHBOARD_API, "session");
        assertEquals(10, lease(key, TEN_PER_HOUR, "a", 10).tokens());
        final Lease refund = leases.refund(key, TEN_PER_HOUR, "a", ++seq, 4);
        assertEquals(Lease.Outcome.APPLIED, refund.outcome());
        assertEquals(4, refund.tokens());
        assertEquals(Lease.Outcome.REPLAYED, leases.refund(key, TEN_PER_HOUR, "a", seq, 4).outcome(),
            "a retried refund gives nothing twice");
        assertEquals(4, lease(key, TEN_PER_HOUR, "b", 100).tokens(), "exactly the four given back");
        assertEquals(Lease.Outcome.APPLIED, leases.refund(key, TEN_PER_HOUR, "a", ++seq, 1_000).outcome());
        assertEquals(10, lease(key, TEN_PER_HOUR, "b", 1_000).tokens(), "a refund fills the bucket, no more");
    }

    @Test
    void anAbsentBucketIsFullAndAnIdleOneGoesAfterTwoWindowsAndAMinute() throws Exception
    {
        final ClusterLimit perSecond = new ClusterLimit(5, 1_000);
        final LeaseKey key = LeaseKey.of(Action.PUBLISH, "bob");
        assertEquals(5, lease(key, perSecond, "a", 5).tokens());
        final long ttl = redis.commands().pttl(key.toString());
        assertTrue(ttl > 60_000 && ttl <= 62_000, "expires 2 windows + 60 s after its last use: " + ttl + " ms");
        redis.commands().del(key.toString()); // what the expiry does
        assertEquals(5, lease(key, perSecond, "a", 5).tokens(), "a bucket that expired is full");
    }

    /**
     * A bucket in use never expires, and each node incarnation (a table file made anew) calls under a name of its
     * own: its sequence records piled up in the bucket's hash for as long as the bucket stayed busy (found by
     * review). A record as old as an idle bucket is now swept by later calls; an older engine's record (no time)
     * is stamped, so it goes too.
     */
    @Test
    void otherNodesRecordsAsOldAsAnIdleBucketAreSwept() throws Exception
    {
        final ClusterLimit perSecond = new ClusterLimit(1_000, 1_000);
        final LeaseKey key = LeaseKey.of(Action.PUBLISH, "busy");
        final String bucket = key.toString();
        assertEquals(1, lease(key, perSecond, "a", 1).tokens());
        final long now = Long.parseLong(redis.commands().time().get(0)) * 1_000;
        final long idleMs = 2 * 1_000 + 60_000;
        for (int i = 0; i < 40; i++)
        {
            // earlier incarnations of the node, last heard from long ago
            redis.commands().hset(bucket, "n:old-" + i, "5 L 1 1 0 " + (now - idleMs - 1_000));
        }
        redis.commands().hset(bucket, "n:recent", "5 L 1 1 0 " + (now - 1_000));
        redis.commands().hset(bucket, "n:older-engine", "5 L 1 1 0");
        for (int call = 0; call < 20; call++)
        {
            assertEquals(1, lease(key, perSecond, "a", 1).tokens());
        }
        final java.util.Map<String, String> fields = redis.commands().hgetall(bucket);
        assertTrue(fields.keySet().stream().noneMatch(f -> f.startsWith("n:old-")),
            "records as old as an idle bucket are swept: " + fields.keySet());
        assertTrue(fields.containsKey("n:recent"), "a record younger than that stays");
        assertTrue(fields.get("n:older-engine").matches("5 L 1 1 0 \\d+"),
            "an older engine's record is stamped with a time: " + fields.get("n:older-engine"));
        assertTrue(fields.get("n:a").matches("\\d+ L 1 1 0 \\d+"), "this node's own: " + fields.get("n:a"));
        final Lease retry = leases.lease(key, perSecond, "a", seq, 1);
        assertEquals(Lease.Outcome.REPLAYED, retry.outcome(), "a record with its time still answers a retry");
    }

    @Test
    void actionsAndIdentifiersNeverShareABucket() throws Exception
    {
        final List<String> identifiers = List.of("x", "x:", ":x", "auth:x", "publish:x", "{auth}:x", "{x}", "x}", "{",
            "x\ny", "x\r\ny", "x\u0000y", "floodgate:auth:x", "ü", "\uD800", "?", "\uD83D\uDE00", "x".repeat(300),
            "x".repeat(301), "y".repeat(LeaseKey.MAX_RAW_BYTES), "y".repeat(LeaseKey.MAX_RAW_BYTES + 1));
        final List<LeaseKey> keys = new ArrayList<>();
        for (final Action action : Action.values())
        {
            for (final String identifier : identifiers)
            {
                keys.add(LeaseKey.of(action, identifier));
            }
        }
        for (final LeaseKey key : keys)
        {
            assertEquals(10, lease(key, TEN_PER_HOUR, "a", 10).tokens(), "a bucket of its own: " + key);
        }
        assertEquals((long)keys.size(), redis.commands().dbsize(), "one Redis key per (identifier, action)");
        for (final LeaseKey key : keys)
        {
            assertEquals(0, lease(key, TEN_PER_HOUR, "a", 10).tokens(), "still empty: " + key);
        }
    }

    @Test
    void aChangedLimitKeepsTheWholeTokensUpToTheNewLimit()
    {
        final LeaseKey key = LeaseKey.of(Action.SUBSCRIBE, "carol");
        assertEquals(3, lease(key, TEN_PER_HOUR, "a", 3).tokens());
        assertEquals(5, lease(key, new ClusterLimit(5, 3_600_000), "a", 100).tokens(), "7 left, capped at 5");
        assertEquals(0, lease(key, TEN_PER_HOUR, "a", 100).tokens(), "and the 2 above it are gone");
    }

    @Test
    void aBucketAtTheLargestCapacityCountsExactly()
    {
        final ClusterLimit largest = new ClusterLimit(1L << 26, 1L << 27);
        assertEquals(ClusterLimit.MAX_CREDITS, largest.capacityCredits());
        final LeaseKey key = LeaseKey.of(Action.PUBLISH, "bytes");
        final Lease all = lease(key, largest, "a", LeaseScript.MAX_NUMBER);
        assertEquals(1L << 26, all.tokens());
        assertEquals(2, all.waitMs(), "2^27 credits a token, 2^26 a millisecond");
        assertEquals(Lease.Outcome.APPLIED, leases.refund(key, largest, "a", ++seq, 3).outcome());
        assertTrue(lease(key, largest, "a", 1L << 26).tokens() >= 3, "the three came back whole");
    }

    @Test
    void limitsTheScriptCannotCountExactlyAreRefused()
    {
        assertTrue(ClusterLimit.fits(1L << 26, 1L << 27));
        assertTrue(!ClusterLimit.fits(1L << 27, 1L << 27), "2^54 credits");
        assertTrue(!ClusterLimit.fits(Long.MAX_VALUE, 2));
        assertThrows(IllegalArgumentException.class, () -> new ClusterLimit(0, 1_000));
        assertThrows(IllegalArgumentException.class, () -> new ClusterLimit(10, 0));
        assertThrows(IllegalArgumentException.class, () -> new ClusterLimit(1L << 40, 1L << 14));
    }

    private Lease lease(final LeaseKey key, final ClusterLimit limit, final String node, final long want)
    {
        final Lease lease = leases.lease(key, limit, node, ++seq, want);
        assertEquals(Lease.Outcome.APPLIED, lease.outcome(), "leased " + want + " of " + key);
        return lease;
    }
}
