package dev.floodgate;

import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis killed under checks of two clustered actions: AUTH (fallback refuse, its default) answers a short
 * retry-after, PUBLISH (fallback local, its default) admits on the node's quota; no check waits past the lease
 * bound and a little scheduling, whether Redis refuses connections or stalls; once Redis is back, leases resume
 * and the cluster quota holds again.
 */
@Timeout(120)
class ClusterOutageTest
{
    private static final long CLUSTER_LIMIT = 50;
    /** A check waits at most one lease (50 ms) and a quarter more for another JVM's; the rest is a loaded host. */
    private static final long CHECK_BOUND_MS = 400;

    @TempDir
    Path dir;

    @Test
    void shouldAnswerPerFallbackWithinTheBoundWhileRedisIsDownAndResumeWhenItIsBack() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("node.map")).capacity(1_000)
                .limit(Action.AUTH, 1_000, 1_000).limit(Action.PUBLISH, 100_000, 1_000)
                .clusterRedisUri(redis.uri())
                .clusterLimit(Action.AUTH, CLUSTER_LIMIT, 1_000).clusterLease(Action.AUTH, 5)
                .clusterLimit(Action.PUBLISH, CLUSTER_LIMIT, 1_000).clusterLease(Action.PUBLISH, 5).build();
            assertTrue(!config.clusterFallsBackLocal(Action.AUTH) && config.clusterFallsBackLocal(Action.PUBLISH));
            try (Floodgate gate = Floodgate.open(config))
            {
                // the premise, a lease held by each: a loaded host may answer the first checks before Redis does
                ClusterKit.awaitAdmitted(gate, "10.0.0.1", Action.AUTH);
                ClusterKit.awaitAdmitted(gate, "alice", Action.PUBLISH);

                redis.kill9();
                final long[] auth = hammer(gate, "10.0.0.1", Action.AUTH);
                final long[] publish = hammer(gate, "alice", Action.PUBLISH);
                System.out.println("Redis down: AUTH {admitted, checks, retry-after 100, slowest ms} " +
                    java.util.Arrays.toString(auth) + ", PUBLISH " + java.util.Arrays.toString(publish));
                assertTrue(auth[0] <= 5, "AUTH admits no more than the lease it held: " + auth[0]);
                assertTrue(auth[2] > 0 && auth[2] == auth[1] - auth[0], "AUTH refuses with the short retry-after: " +
                    java.util.Arrays.toString(auth));
                assertEquals(publish[1], publish[0], "PUBLISH admits on the node's quota alone");
                assertTrue(auth[3] <= CHECK_BOUND_MS && publish[3] <= CHECK_BOUND_MS, "no check waited past the " +
                    "bound: AUTH " + auth[3] + " ms, PUBLISH " + publish[3] + " ms");

                redis.restart();
                ClusterKit.awaitAdmitted(gate, "10.0.0.2", Action.AUTH); // AUTH leases resume
                final long localBefore = localFallbacks(gate);
                final long startNanos = System.nanoTime();
                long admitted = 0;
                for (int i = 0; i < 200; i++)
                {
                    admitted += gate.checkLimit("bob", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
                }
                // the local fallback admits while bob's first lease is slower than a check waits (a loaded host: 95
                // of 200 admitted once, against a bound of the cluster limit and 20); every other admission is the
                // cluster's: its bucket, full, and what it refilled meanwhile
                final long local = localFallbacks(gate) - localBefore;
                final long allowed = ClusterKit.allowance(CLUSTER_LIMIT, 1_000, 0,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos) + 1);
                assertTrue(admitted >= 5 && admitted - local <= allowed, "PUBLISH is held to the cluster quota " +
                    "again, not the node's: " + admitted + " admitted, " + local + " of them by the fallback, the " +
                    "cluster allowing " + allowed);

                // a stalled server answers nothing: each check gives up on its lease at 50 ms
                redis.pause();
                final long[] stalled;
                try
                {
                    stalled = hammer(gate, "10.0.0.3", Action.AUTH);
                }
                finally
                {
                    redis.resume();
                }
                System.out.println("Redis stalled: AUTH " + java.util.Arrays.toString(stalled));
                assertEquals(0, stalled[0], "a cold AUTH key admits nothing without a lease");
                assertTrue(stalled[2] > 0 && stalled[3] <= CHECK_BOUND_MS, "refused per fallback, no check waited " +
                    "past the bound: " + java.util.Arrays.toString(stalled));
            }
        }
    }

    private static long localFallbacks(final Floodgate gate)
    {
        return gate.processCluster().checks().get(Action.PUBLISH).fallbacksLocal();
    }

    /** @return {admitted, checks, refused with the cluster retry-after, slowest check in ms} over 1.5 s. */
    private static long[] hammer(final Floodgate gate, final String identifier, final Action action)
        throws InterruptedException
    {
        final AtomicLong admitted = new AtomicLong();
        final AtomicLong checks = new AtomicLong();
        final AtomicLong retry = new AtomicLong();
        final AtomicLong slowest = new AtomicLong();
        ClusterKit.hammer(2, 1_500, thread ->
        {
            final long start = System.nanoTime();
            final long result = gate.checkLimit(identifier, action);
            slowest.accumulateAndGet(System.nanoTime() - start, Math::max);
            checks.incrementAndGet();
            admitted.addAndGet(result == Floodgate.ADMITTED ? 1 : 0);
            retry.addAndGet(result == FloodgateConfig.DEFAULT_CLUSTER_RETRY_AFTER_MS ? 1 : 0);
            Thread.sleep(0, 50_000); // a broker does other work between checks
        }, () -> { });
        return new long[] {admitted.get(), checks.get(), retry.get(), TimeUnit.NANOSECONDS.toMillis(slowest.get())};
    }
}
