package dev.floodgate;

import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableEntry;
import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A probe of a clustered action against the check made at the same instant, in the lease states a probe can tell
 * without I/O (NOTES, "The node side"). A real redis-server; a Redis stopped by SIGSTOP holds the node's refill in
 * flight until the lease's own 1 s bound, and the engine runs on a {@link ManualTicker} that stands still, so a
 * check waits for that lease to the bound rather than for 50 ms of a clock a loaded host makes run out first.
 *
 * <p>Failed before the fix: with a refill in flight and no drained mark, both probes said the node's own tokens
 * (999,993 of 1,000,000 a second; the cluster's limit with the node's quota off) and no wait, where the node held 3 and
 * then 0 and the check was refused with the fallback's retry-after (with the fallback {@code local}, the check admitted
 * either way, only the cluster limit's cap was missing); with the action's fallback {@code local} and this JVM's Redis unavailable a moment
 * ago, a probe of a key marked drained said 0 and the mark's hour, where the check was admitted; a probe of a key never
 * seen said the node's limit, where a check of more than the cluster's limit is never admitted.
 */
@Timeout(180)
class ProbeLeaseStatesTest
{
    private static final long CLUSTER_LIMIT = 1_000;
    private static final long LEASE = 10;
    /** The fallback's retry-after, told apart from any other. */
    private static final long FALLBACK_MS = 7;
    /**
     * Scenarios tried before the test gives up on its premise: that this thread probes within the stalled refill's 1 s
     * bound of real time (a host that holds it longer makes the attempt's premise false, and the next tries again).
     */
    private static final int ATTEMPTS = 5;

    @TempDir
    Path dir;

    private FloodgateConfig config(final LocalRedis redis, final ManualTicker ticker, final boolean local,
        final long clusterLimit, final long clusterWindowMs, final long lease)
    {
        return ClusterKit.publishNode(dir.resolve("node.map"), redis.uri(), clusterLimit, clusterWindowMs, lease)
            .ticker(ticker).clusterFallbackLocal(Action.PUBLISH, local).clusterRetryAfterMs(FALLBACK_MS).build();
    }

    @Test
    void whileARefillIsInFlightAProbeSaysWhatTheNodeHoldsAndTheRefusingFallbacksWait() throws Exception
    {
        inFlight(false, false);
    }

    @Test
    void whileARefillIsInFlightALocalFallbackLeavesTheProbeTheNodesAsTheCheckIsAdmitted() throws Exception
    {
        inFlight(true, false);
    }

    /**
     * The node's quota switched off by its policy leaves this JVM's cluster quota in force ({@code ClusterOnly}): the
     * probe is the cluster's alone, which said the cluster's limit and no wait while the refill was in flight.
     */
    @Test
    void whileARefillIsInFlightAProbeOfANodeQuotaOffUnderTheClusterSaysWhatTheNodeHolds() throws Exception
    {
        inFlight(false, true);
    }

    private void inFlight(final boolean local, final boolean nodeOff) throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final ManualTicker ticker = new ManualTicker(System.nanoTime());
            try (Floodgate gate = Floodgate.open(config(redis, ticker, local, CLUSTER_LIMIT, 86_400_000, LEASE)))
            {
                if (nodeOff)
                {
                    // from a configuration without the cluster keys; the bucket door's quota is off at once
                    gate.reconfigure(FloodgateConfig.builder().file(dir.resolve("node.map")).capacity(1_000)
                        .limit(Action.PUBLISH, 0, 1_000).build());
                    assertEquals(0, gate.policy().rule(Action.PUBLISH).limit(), "the premise: the node's quota is off");
                }
                for (int attempt = 0; ; attempt++)
                {
                    assertTrue(attempt < ATTEMPTS, "the premise: a probe within a stalled refill's 1 s bound in " +
                        ATTEMPTS + " attempts");
                    if (inFlightAttempt(gate, redis, ticker, local, nodeOff, "user" + attempt))
                    {
                        return;
                    }
                    ticker.advanceMs(100); // the JVM's 2 x 50 ms of answering the fallback at once are over
                }
            }
        }
    }

    /** @return false when the refill ended before the probes were taken (the attempt proves nothing). */
    private boolean inFlightAttempt(final Floodgate gate, final LocalRedis redis, final ManualTicker ticker,
        final boolean local, final boolean nodeOff, final String id) throws IOException
    {
        firstLease(gate, ticker, id);
        while (balance(id) > LEASE / 2)
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimit(id, Action.PUBLISH)); // half a lease left: no refill yet
        }
        assertEquals(LEASE / 2, balance(id), "the premise: half a lease left");
        final Probe[] atThree;
        final Probe[] atZero;
        final long check;
        final long unavailable = gate.processCluster().unavailable();
        redis.pause();
        try
        {
            for (int i = 0; i < 2; i++)
            {
                // 4 left starts the refill, which waits on the stopped server; 3 left
                assertEquals(Floodgate.ADMITTED, gate.checkLimit(id, Action.PUBLISH));
            }
            atThree = nodeOff ? new Probe[] {gate.probe(id, Action.PUBLISH)} : probes(gate, id);
            for (int i = 0; i < 3; i++)
            {
                assertEquals(Floodgate.ADMITTED, gate.checkLimit(id, Action.PUBLISH), "3 were left"); // 0 left
            }
            atZero = nodeOff ? new Probe[] {gate.probe(id, Action.PUBLISH)} : probes(gate, id);
            if (gate.processCluster().unavailable() != unavailable)
            {
                return false; // the refill ended at its bound before the probes: not the state under test
            }
            check = gate.checkLimit(id, Action.PUBLISH); // waits for the refill to its bound (the ticker stands)
        }
        finally
        {
            redis.resume();
        }
        for (final Probe probe : atThree)
        {
            assertEquals(nodeOff ? CLUSTER_LIMIT : 1_000_000, probe.limit(), "the limit in force: " + probe);
            assertEquals(local ? CLUSTER_LIMIT : 3, probe.remaining(), "balance 3, a refill in flight: " + probe);
            assertEquals(0, probe.retryAfterMs(), "balance 3, a refill in flight: " + probe);
        }
        if (local)
        {
            assertEquals(Floodgate.ADMITTED, check, "the fallback admits on the node's quota");
            for (final Probe probe : atZero)
            {
                assertEquals(CLUSTER_LIMIT, probe.remaining(), "admitted either way: " + probe);
                assertEquals(0, probe.retryAfterMs(), "admitted either way: " + probe);
            }
        }
        else
        {
            assertEquals(FALLBACK_MS, check, "no lease within the check's wait: the fallback refuses");
            for (final Probe probe : atZero)
            {
                assertEquals(0, probe.remaining(), "balance 0, a refill in flight, check " + check + ": " + probe);
                assertEquals(check, probe.retryAfterMs(), "balance 0, a refill in flight: " + probe);
            }
        }
        return true;
    }

    /**
     * The action's fallback is {@code local}, and a lease of another key ended unavailable a moment ago: for the next
     * 2 x 50 ms every check of the action that its balance cannot cover answers the fallback, admitted on the node's
     * quota, before it looks at the key's drained mark ({@code LeaseWait.whenShort}). The probe said the mark's wait.
     */
    @Test
    void aLocalFallbackAnsweringForTheActionAdmitsADrainedKeyAndTheProbeSaysSo() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final ManualTicker ticker = new ManualTicker(System.nanoTime());
            try (Floodgate gate = Floodgate.open(config(redis, ticker, true, 5, 3_600_000, 5)))
            {
                firstLease(gate, ticker, "alice");
                long drained;
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while ((drained = gate.checkLimit("alice", Action.PUBLISH)) == Floodgate.ADMITTED)
                {
                    // 5 of 5 spent, the refill that started at 2 left granted nothing: the drained mark
                    assertTrue(System.nanoTime() - deadline < 0, "the bucket of 5 was drained within 30 s");
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                }
                assertTrue(drained > 60_000, "the premise: refused by the drained mark (an hour's refill): " +
                    drained);
                redis.pause();
                try
                {
                    // bob's first lease ends unavailable at its 1 s bound: the fallback admits him, and answers for
                    // the action for the next 2 x 50 ms of the ticker, which stands still
                    assertEquals(Floodgate.ADMITTED, gate.checkLimit("bob", Action.PUBLISH));
                    assertTrue(gate.processCluster().unavailable() > 0, "the premise: bob's lease was unavailable");
                    final Probe[] probes = probes(gate, "alice");
                    final long check = gate.checkLimit("alice", Action.PUBLISH);
                    assertEquals(Floodgate.ADMITTED, check, "the fallback answers before the drained mark");
                    for (final Probe probe : probes)
                    {
                        assertTrue(probe.remaining() >= 1, "probe " + probe + ", check " + check);
                        assertEquals(0, probe.retryAfterMs(), "probe " + probe + ", check " + check);
                    }
                }
                finally
                {
                    redis.resume();
                }
            }
        }
    }

    /** A check of more than the cluster's limit is never admitted, so no probe says more remain. */
    @Test
    void aProbeSaysNoMoreThanTheClusterLimitForAKeyNeverSeen() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final ManualTicker ticker = new ManualTicker(System.nanoTime());
            try (Floodgate gate = Floodgate.open(config(redis, ticker, false, CLUSTER_LIMIT, 86_400_000, LEASE)))
            {
                for (final Probe probe : probes(gate, "carol"))
                {
                    assertEquals(1_000_000, probe.limit(), "the node's limit: " + probe);
                    assertEquals(CLUSTER_LIMIT, probe.remaining(), "never seen: " + probe);
                    assertEquals(0, probe.retryAfterMs(), "never seen: " + probe);
                }
                assertEquals(Floodgate.NEVER, gate.checkLimit("carol", Action.PUBLISH, CLUSTER_LIMIT + 1));
                assertEquals(Floodgate.NEVER, gate.checkLimitInCaller("carol", Action.PUBLISH, CLUSTER_LIMIT + 1));
            }
        }
    }

    private static Probe[] probes(final Floodgate gate, final String id)
    {
        return new Probe[] {gate.probe(id, Action.PUBLISH), gate.probeInCaller(id, Action.PUBLISH)};
    }

    /**
     * Checks {@code id} until its first lease has landed in the node's balance, within 30 s: on a ticker that stands
     * still a check waits for it to the lease's 1 s bound, and a slower one is answered by the fallback (admitted
     * without a token by {@code local}), then lands for the next check.
     */
    private void firstLease(final Floodgate gate, final ManualTicker ticker, final String id) throws IOException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (gate.checkLimit(id, Action.PUBLISH) != Floodgate.ADMITTED || balance(id) <= 0)
        {
            assertTrue(System.nanoTime() - deadline < 0, id + "'s first lease landed within 30 s");
            ticker.advanceMs(100); // past the JVM's 2 x 50 ms of answering the fallback at once
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    /** @return the node's balance for (PUBLISH, id), read as a reader reads it; -1 when it has no lease entry. */
    private long balance(final String id) throws IOException
    {
        try (FloodgateReader reader = FloodgateReader.open(dir.resolve("node.map")))
        {
            final List<TableEntry> leases = reader.entries().stream().filter(e -> e.kind() == EntryKind.LEASE &&
                e.action() == Action.PUBLISH && e.label().equals(id)).toList();
            return leases.isEmpty() ? -1 : leases.get(0).leaseBalance();
        }
    }
}
