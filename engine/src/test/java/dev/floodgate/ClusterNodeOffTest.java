package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.LocalRedis;
import dev.floodgate.testkit.LoggedWarnings;
import dev.floodgate.testkit.PolicyKeysChild;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node's policy that switches off (limit 0) the quota of an action a JVM's configuration gives a cluster quota
 * leaves the cluster quota in force: each check of the action is admitted only when the cluster admits it, and
 * counted; a JVM without the cluster keys still admits it uncounted. Before, every check of such an action was
 * admitted uncounted without asking the cluster (found by the byte-scale review: 20 of 20 admitted against a cluster
 * quota of 5 a minute).
 *
 * <p>The cluster quota is 5 an hour, leased 5 at a time, refused without a lease: nothing refills it during a test,
 * so every admission past 5 tokens is one the cluster never granted.
 */
@Timeout(120)
class ClusterNodeOffTest
{
    private static final long CLUSTER_LIMIT = 5;
    private static final int CHECKS = 20;
    /** The fallback's retry-after (no lease within a check's wait on a loaded host), told apart from the cluster's. */
    private static final long FALLBACK_MS = 7;

    @TempDir
    Path dir;

    private Path file()
    {
        return dir.resolve("node.map");
    }

    /**
     * PUBLISH: a node quota far above the cluster's; SUBSCRIBE: a node quota of 100 a week (no token comes back
     * during a test), no cluster quota.
     */
    private FloodgateConfig clustered(final LocalRedis redis)
    {
        return ClusterKit.publishNode(file(), redis.uri(), CLUSTER_LIMIT, 3_600_000, CLUSTER_LIMIT)
            .limit(Action.SUBSCRIBE, 100, FloodgateConfig.MAX_WINDOW_MS).clusterRetryAfterMs(FALLBACK_MS).build();
    }

    /** The same node's policy with PUBLISH off, from a configuration without the cluster keys. */
    private FloodgateConfig publishOff()
    {
        return FloodgateConfig.builder().file(file()).capacity(1_000).limit(Action.PUBLISH, 0, 1_000)
            .limit(Action.SUBSCRIBE, 100, FloodgateConfig.MAX_WINDOW_MS).build();
    }

    @Test
    void theBucketDoorIsHeldToTheClusterQuotaWhenThePolicyApiSwitchesTheNodeQuotaOff() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); Floodgate gate = Floodgate.open(clustered(redis)))
        {
            gate.reconfigure(publishOff());
            assertEquals(0, gate.policy().rule(Action.PUBLISH).limit(), "the premise: the node's quota is off");
            long admitted = firstAdmission(() -> gate.checkLimit("alice", Action.PUBLISH));
            for (int i = 0; i < CHECKS; i++)
            {
                admitted += gate.checkLimit("alice", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
            }
            assertTrue(admitted <= CLUSTER_LIMIT, "admitted " + admitted + " of " + (CHECKS + 1) +
                " checks against a cluster quota of " + CLUSTER_LIMIT);
            final Stats.Checks counted = gate.processChecks().get(Action.PUBLISH);
            assertEquals(admitted, counted.admitted(), "counted as checks are: " + counted);
            assertTrue(counted.refused() >= CHECKS + 1 - admitted, "counted as checks are: " + counted);
        }
    }

    @Test
    void theWindowDoorAndAHandleAreHeldToTheClusterQuotaWhenAnotherJvmSwitchesTheNodeQuotaOff() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); Floodgate gate = Floodgate.open(clustered(redis)))
        {
            final String published = ChildJvm.run(dir, PolicyKeysChild.class, file().toString(),
                "publish_rate_limit=0");
            assertEquals(0, gate.policy().rule(Action.PUBLISH).limit(), "the premise: " + published);
            awaitWindowOff(gate);
            final Quota handle = gate.quota("carol", Action.PUBLISH);
            long tokens = 2 * firstAdmission(() -> handle.checkLimitInCaller(2));
            for (int i = 0; i < CHECKS; i++)
            {
                tokens += handle.checkLimitInCaller(2) == Floodgate.ADMITTED ? 2 : 0;
                tokens += gate.checkLimitInCaller("carol", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
            }
            assertTrue(tokens <= CLUSTER_LIMIT, "admitted " + tokens + " tokens against a cluster quota of " +
                CLUSTER_LIMIT);
        }
    }

    @Test
    void aChargeIsHeldToTheClusterQuotaAndGivesItsOtherQuotaBackWhenTheNodeQuotaIsOff() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); Floodgate gate = Floodgate.open(clustered(redis)))
        {
            gate.reconfigure(publishOff());
            awaitWindowOff(gate);
            final List<Charge> charge = List.of(Charge.window("dave", Action.PUBLISH, 1),
                Charge.bucket("dave", Action.SUBSCRIBE, 1));
            long admitted = firstAdmission(() -> gate.charge(charge));
            for (int i = 0; i < CHECKS; i++)
            {
                admitted += gate.charge(charge) == Floodgate.ADMITTED ? 1 : 0;
            }
            assertTrue(admitted <= CLUSTER_LIMIT, "admitted " + admitted + " charges against a cluster quota of " +
                CLUSTER_LIMIT);
            // all or nothing: SUBSCRIBE's claim of every charge the cluster refused was given back
            assertEquals(100 - admitted, gate.probe("dave", Action.SUBSCRIBE).remaining());
            assertEquals(admitted, gate.processChecks().get(Action.PUBLISH).admitted());
        }
    }

    @Test
    void aProbeSaysWhatTheCheckOfAQuotaOffUnderTheClusterSays() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); Floodgate gate = Floodgate.open(clustered(redis)))
        {
            gate.reconfigure(publishOff());
            awaitWindowOff(gate);
            final Probe fresh = gate.probe("erin", Action.PUBLISH);
            assertEquals(new Probe(CLUSTER_LIMIT, CLUSTER_LIMIT, 0, 0), fresh, "an identifier never seen");
            firstAdmission(() -> gate.checkLimit("erin", Action.PUBLISH));
            long check = Floodgate.ADMITTED;
            for (int i = 0; i < CHECKS && check == Floodgate.ADMITTED; i++)
            {
                check = gate.checkLimit("erin", Action.PUBLISH);
            }
            check = pastTheFallback(check, () -> gate.checkLimit("erin", Action.PUBLISH));
            assertTrue(check > 0, "the premise: the cluster's bucket is drained: " + check);
            final Probe bucket = gate.probe("erin", Action.PUBLISH);
            final Probe window = gate.probeInCaller("erin", Action.PUBLISH);
            final long next = gate.checkLimit("erin", Action.PUBLISH);
            final long nextInCaller = gate.checkLimitInCaller("erin", Action.PUBLISH);
            assertTrue(next > 0 && nextInCaller > 0, "the premise: still refused: " + next + ", " + nextInCaller);
            for (final Probe probe : List.of(bucket, window))
            {
                assertEquals(CLUSTER_LIMIT, probe.limit(), "probe " + probe + " of a node quota off");
                assertEquals(0, probe.remaining(), "probe " + probe + " while every check is refused with " + next);
                assertTrue(probe.retryAfterMs() > 0, "probe " + probe + " while every check is refused with " + next);
            }
        }
    }

    @Test
    void aJvmWithoutTheClusterKeysStillAdmitsAnActionOffUncountedAndTheOtherSaysSoOnce() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); LoggedWarnings log = LoggedWarnings.record();
            Floodgate gate = Floodgate.open(clustered(redis)); Floodgate plain = Floodgate.openAdopting(publishOff()))
        {
            plain.reconfigure(publishOff());
            awaitWindowOff(plain);
            for (int i = 0; i < CHECKS; i++)
            {
                assertEquals(Floodgate.ADMITTED, plain.checkLimit("frank", Action.PUBLISH));
                assertEquals(Floodgate.ADMITTED, plain.checkLimitInCaller("frank", Action.PUBLISH, 3));
                assertEquals(Floodgate.ADMITTED, plain.charge(List.of(Charge.window("frank", Action.PUBLISH, 2))));
            }
            assertEquals(new Probe(0, Long.MAX_VALUE, 0, 0), plain.probe("frank", Action.PUBLISH));
            assertEquals(0, plain.processChecks().get(Action.PUBLISH).total(), "off: not counted");
            assertEquals(0, gate.stats().cluster().leasesHeld(), "off: nothing leased for a JVM without a quota");
            firstAdmission(() -> gate.checkLimit("frank", Action.PUBLISH));
            for (int i = 0; i < CHECKS; i++)
            {
                gate.checkLimit("frank", Action.PUBLISH);
                gate.checkLimitInCaller("grace", Action.PUBLISH, 2);
                gate.charge(List.of(Charge.window("heidi", Action.PUBLISH, 1)));
            }
            final List<String> said = log.warnings().stream().filter(w -> w.contains("stays in force")).toList();
            assertEquals(1, said.size(), "said once: " + said);
            assertTrue(said.get(0).contains("publish") && said.get(0).contains("5 per 3600000 ms"), said.get(0));
        }
    }

    /**
     * Waits for the window door's next boundary, from which a publish switches its quota off (the bucket door's is
     * off at once): until then its checks are the node's quota's, still on. A fresh identifier's probe says the
     * node's limit of 1,000,000 until then.
     */
    private static void awaitWindowOff(final Floodgate gate) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (gate.probeInCaller("boundary", Action.PUBLISH).limit() == 1_000_000)
        {
            assertTrue(System.nanoTime() - deadline < 0, "the window boundary passed within 10 s");
            Thread.sleep(20);
        }
    }

    /**
     * @return {@code first}, or if it is the fallback's refusal, the first later answer of {@code check} that is
     * not, within 30 s: a refusal for want of a lease (its answer slower than a check's 50 ms wait, on a loaded host)
     * precedes the drained mark that answer sets (a probe then says the fallback's wait, not the mark's; it said the
     * cluster's limit and no wait until the probe learned of the lease on the wire: ProbeLeaseStatesTest).
     */
    private static long pastTheFallback(final long first, final LongSupplier check) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        long result = first;
        while (result == FALLBACK_MS)
        {
            assertTrue(System.nanoTime() - deadline < 0, "a lease answered within 30 s");
            Thread.sleep(20);
            result = check.getAsLong();
        }
        return result;
    }

    /**
     * @return 1, once {@code check} was first admitted (its first lease may outlast a check's 50 ms wait on a loaded
     * host, and this node refuses without a lease), within 30 s.
     */
    private static long firstAdmission(final LongSupplier check) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (check.getAsLong() != Floodgate.ADMITTED)
        {
            assertTrue(System.nanoTime() - deadline < 0, "admitted within 30 s");
            Thread.sleep(20);
        }
        return 1;
    }
}
