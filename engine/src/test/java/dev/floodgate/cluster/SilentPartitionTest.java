package dev.floodgate.cluster;

import dev.floodgate.Action;
import dev.floodgate.testkit.FreezableProxy;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection that goes silent without a RST or FIN (a firewall dropping packets, an expired NAT entry, a moved
 * address), played by a proxy that stops forwarding on the connections it holds while it forwards new ones: each
 * call still ends within its bound, and leasing resumes by itself on a new connection, not before
 * {@link SilenceWatchdog#SILENCE} of silence. And a slow Redis, whose replies come after the calls' bound but come,
 * keeps its one connection: the watchdog does not churn it.
 *
 * <p>Calls are opened with the engine's 1 s lease bound ({@link RedisLeaseSource#LEASE_TIMEOUT}). A call is asserted
 * to end within {@value #MAX_CALL_MS} ms, the bound plus slack for a loaded host (two cores, four CPU hogs): a hang
 * would be the kernel's 15 minutes of retransmissions. The resume is awaited on the monotonic clock up to a hard
 * {@value #RESUME_DEADLINE_S} s and its time printed, never asserted tightly.
 */
@Timeout(120)
class SilentPartitionTest
{
    private static final Duration BOUND = RedisLeaseSource.LEASE_TIMEOUT;
    private static final long MAX_CALL_MS = BOUND.toMillis() + 2_000;
    private static final long RESUME_DEADLINE_S = 30;
    private static final ClusterLimit PLENTY = new ClusterLimit(1_000_000, 1_000);
    private static final LeaseKey KEY = LeaseKey.of(Action.PUBLISH, "silent");

    @Test
    void aBlackHoledConnectionIsReplacedAndLeasingResumes() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); FreezableProxy proxy = FreezableProxy.start(redis.port());
             RedisLeases leases = RedisLeases.open(proxy.redisUri(), BOUND))
        {
            assertTrue(leases.awaitConnected(Duration.ofSeconds(10)), "connected through the proxy");
            long seq = leaseUntilGranted(leases, 0, TimeUnit.SECONDS.toNanos(10)).seq;
            assertTrue(seq > 0, "leases are granted through the proxy");
            assertEquals(1, proxy.accepted());

            proxy.blackHole();
            final long blackHoled = System.nanoTime();
            final Outcome outcome = leaseUntilGranted(leases, seq, TimeUnit.SECONDS.toNanos(RESUME_DEADLINE_S));
            final long resumedMs = TimeUnit.NANOSECONDS.toMillis(outcome.grantedAtNanos - blackHoled);
            System.out.printf("black-holed: %d calls unavailable, longest call %.1f ms; leasing resumed %s; "
                    + "%d connections accepted%n", outcome.unavailable, outcome.maxCallNanos / 1e6,
                outcome.granted() ? resumedMs + " ms after the black hole" : "NEVER (within " + RESUME_DEADLINE_S
                    + " s)", proxy.accepted());

            assertTrue(outcome.unavailable > 0, "calls on the black-holed connection were answered unavailable");
            assertTrue(outcome.maxCallNanos < TimeUnit.MILLISECONDS.toNanos(MAX_CALL_MS),
                "every call ended within " + MAX_CALL_MS + " ms: the longest took " + outcome.maxCallNanos / 1e6);
            assertTrue(outcome.granted(), "leasing resumed within " + RESUME_DEADLINE_S + " s of the black hole");
            assertTrue(proxy.accepted() >= 2, "on a new connection");
            assertTrue(resumedMs >= SilenceWatchdog.SILENCE.toMillis(), "not before the silence lasted "
                + SilenceWatchdog.SILENCE + ": " + resumedMs + " ms");
        }
    }

    @Test
    void aSlowRedisWhoseRepliesComeLateKeepsItsConnection() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); FreezableProxy proxy = FreezableProxy.start(redis.port()))
        {
            // later than the calls' 1 s bound, well within the watchdog's bound plus SILENCE (4 s)
            proxy.delayReplies(BOUND.toMillis() + BOUND.toMillis() / 2);
            try (RedisLeases leases = RedisLeases.open(proxy.redisUri(), BOUND))
            {
                assertTrue(leases.awaitConnected(Duration.ofSeconds(20)), "connected through the slow proxy");
                // calls for twice as long as the watchdog needs to decide, counted on the monotonic clock
                final long watchNanos = 2 * (BOUND.toNanos() * SilenceWatchdog.TIMEOUTS
                    + SilenceWatchdog.SILENCE.toNanos());
                final long start = System.nanoTime();
                final Outcome outcome = leaseUntilGranted(leases, 0, watchNanos);
                final long lateReplies = redis.scriptCalls();
                System.out.printf("slow: %d calls unavailable over %d ms, longest call %.1f ms, %d leases run by "
                        + "Redis, %d connections accepted%n", outcome.unavailable,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), outcome.maxCallNanos / 1e6,
                    lateReplies, proxy.accepted());
                assertTrue(!outcome.granted(), "every reply came after the bound");
                assertTrue(outcome.unavailable >= 2L * SilenceWatchdog.TIMEOUTS, "and the calls went on");
                assertTrue(outcome.maxCallNanos < TimeUnit.MILLISECONDS.toNanos(MAX_CALL_MS));
                assertEquals(1, proxy.accepted(), "the slow connection was kept, not replaced");
                assertTrue(leases.isConnected());
            }
        }
    }

    /**
     * Leases one token at a time, seqs from {@code seq + 1}, until one is granted or {@code maxNanos} passed. A call
     * answered at once (refused while reconnecting) is followed by a 10 ms pause so the loop does not spin.
     */
    private static Outcome leaseUntilGranted(final RedisLeases leases, final long seq, final long maxNanos)
        throws InterruptedException
    {
        final Outcome outcome = new Outcome();
        final long deadline = System.nanoTime() + maxNanos;
        outcome.seq = seq;
        while (System.nanoTime() - deadline < 0)
        {
            final long start = System.nanoTime();
            final Lease lease = leases.lease(KEY, PLENTY, "n", ++outcome.seq, 1);
            final long end = System.nanoTime();
            outcome.maxCallNanos = Math.max(outcome.maxCallNanos, end - start);
            if (lease.outcome() == Lease.Outcome.APPLIED && lease.tokens() == 1)
            {
                outcome.grantedAtNanos = end;
                return outcome;
            }
            assertEquals(Lease.Outcome.UNAVAILABLE, lease.outcome(), "a lease not granted is unavailable");
            outcome.unavailable++;
            if (end - start < TimeUnit.MILLISECONDS.toNanos(10))
            {
                Thread.sleep(10);
            }
        }
        outcome.seq = -1;
        return outcome;
    }

    private static final class Outcome
    {
        long seq;
        long unavailable;
        long maxCallNanos;
        long grantedAtNanos;

        boolean granted()
        {
            return seq > 0;
        }
    }
}
