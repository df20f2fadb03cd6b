package dev.floodgate;

import dev.floodgate.door.ShardedWindow;
import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableEntry;
import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cluster quota in one JVM against a real redis-server: a cluster limit far below the node's is what the
 * checks admit (never more than the cluster bucket's capacity plus its refill over the server time the run
 * took), through either door, and Redis sees a round trip per lease, not per check.
 */
@Timeout(120)
class ClusterQuotaTest
{
    private static final long CLUSTER_LIMIT = 200;
    private static final long CLUSTER_WINDOW_MS = 1_000;
    private static final long LEASE = 20;
    private static final long RUN_MS = 2_500;
    private static final int THREADS = 4;

    @TempDir
    Path dir;

    @Test
    void shouldAdmitNoMoreThanTheClusterQuotaThroughEitherDoorWithARoundTripPerLease() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("node.map")).capacity(1_000)
                .limit(Action.PUBLISH, 100_000, 1_000).limit(Action.SUBSCRIBE, 100_000, 1_000)
                .clusterRedisUri(redis.uri())
                .clusterLimit(Action.PUBLISH, CLUSTER_LIMIT, CLUSTER_WINDOW_MS).clusterLease(Action.PUBLISH, LEASE)
                .clusterLimit(Action.SUBSCRIBE, CLUSTER_LIMIT, CLUSTER_WINDOW_MS)
                .clusterLease(Action.SUBSCRIBE, LEASE)
                // refuse without a lease: an admission on the node's quota alone would hide a lease that failed
                .clusterFallbackLocal(Action.PUBLISH, false).clusterFallbackLocal(Action.SUBSCRIBE, false).build();
            try (Floodgate gate = Floodgate.open(config))
            {
                for (final boolean window : new boolean[] {false, true})
                {
                    final Action action = window ? Action.SUBSCRIBE : Action.PUBLISH;
                    final long callsBefore = redis.scriptCalls();
                    final long startMs = redis.timeMs();
                    final long[] counts = hammer(gate, action, window);
                    final long endMs = redis.timeMs();
                    final long admitted = counts[0];
                    final long checks = counts[1];
                    final long bound = ClusterKit.allowance(CLUSTER_LIMIT, CLUSTER_WINDOW_MS, startMs, endMs);
                    assertTrue(admitted <= bound, action + ": admitted " + admitted + " over the cluster's " + bound);
                    assertTrue(admitted >= CLUSTER_LIMIT, action + ": the premise, the quota was spent: " + admitted);
                    assertTrue(checks > 10 * admitted, action + ": the premise, most checks were refused: " + checks);
                    final long trips = redis.scriptCalls() - callsBefore;
                    System.out.println(action + ": admitted " + admitted + " of " + checks + " checks in " +
                        (endMs - startMs) + " ms of server time (bound " + bound + ") with " + trips + " round trips");
                    // a lease per LEASE tokens admitted, and the calls of drained moments that granted little
                    assertTrue(trips <= admitted / LEASE + 2 * (endMs - startMs), action + ": " + trips +
                        " round trips for " + admitted + " admitted and " + checks + " checks");
                    assertTrue(trips < checks / 10, action + ": round trips grow with checks: " + trips + " for " +
                        checks);
                }
            }
        }
    }

    @Test
    void shouldHonourTheClusterQuotaInChargesHandlesAndProbesAndGiveBackWhatTheClusterRefused() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            // a cluster quota of 10 a minute, leased 5 at a time; the node's quotas are far larger. A still ticker:
            // a check waits for its lease until Redis answers (the 50 ms bound is the ticker's), so a round trip
            // slower than that beside CPU hogs is no fallback refusal of the check of 3 below, nor a charge refused
            // before the drained mark came, which the probes then would not find
            final ManualTicker ticker = new ManualTicker(System.nanoTime());
            final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("node.map")).capacity(1_000)
                .ticker(ticker)
                .limit(Action.PUBLISH, 1_000, 60_000).limit(Action.SUBSCRIBE, 1_000, 60_000)
                .clusterRedisUri(redis.uri()).clusterLimit(Action.PUBLISH, 10, 60_000)
                .clusterLease(Action.PUBLISH, 5).clusterFallbackLocal(Action.PUBLISH, false).build();
            try (Floodgate gate = Floodgate.open(config))
            {
                final Quota handle = gate.quota("alice", Action.PUBLISH);
                // the client's own bound (1 s) can still end the first lease on a loaded host: the check is then
                // refused (this action's fallback), and the next asks again once the ticker has moved past the
                // 2 x 50 ms this JVM answers so without asking
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                long first;
                while ((first = handle.checkLimit(4)) != Floodgate.ADMITTED)
                {
                    assertEquals(FloodgateConfig.DEFAULT_CLUSTER_RETRY_AFTER_MS, first, "refused per fallback only");
                    assertTrue(System.nanoTime() - deadline < 0, "the first lease arrived within 30 s");
                    ticker.advanceMs(100);
                    Thread.sleep(20);
                }
                assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("alice", Action.PUBLISH, 3));
                // 3 left in the cluster: a charge of 4 PUBLISH and 1 SUBSCRIBE is refused whole, by the cluster
                final long refused = gate.charge(List.of(Charge.window("alice", Action.SUBSCRIBE, 1),
                    Charge.bucket("alice", Action.PUBLISH, 4)));
                assertTrue(refused > 0, "the cluster refuses the charge: " + refused);
                assertEquals(1_000, gate.probeInCaller("alice", Action.SUBSCRIBE).remaining(),
                    "the SUBSCRIBE claim was given back");
                assertEquals(3, gate.probe("alice", Action.PUBLISH).remaining(),
                    "the cluster's bucket was drained: the node's lease narrows the probe to its balance");
                assertEquals(Floodgate.ADMITTED, gate.charge(List.of(Charge.window("alice", Action.SUBSCRIBE, 1),
                    Charge.bucket("alice", Action.PUBLISH, 3))), "what the cluster holds is still there");
                final long last = gate.checkLimit("alice", Action.PUBLISH);
                assertTrue(last > 1_000, "the cluster is spent for about 6 s a token: " + last);
                final Probe probe = gate.probe("alice", Action.PUBLISH);
                assertEquals(0, probe.remaining(), "the probe says what the node last heard: " + probe);
                assertTrue(probe.retryAfterMs() > 1_000, probe.toString());
                assertEquals(1_000, probe.limit(), "the node's limit stands");
            }
        }
    }

    @Test
    void shouldGiveBackTheNodesOneTokenWindowClaimWhenTheClusterRefuses() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            // a cluster quota of 5 a minute, leased whole; the node's window is far larger
            final Path file = dir.resolve("node.map");
            final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000)
                .limit(Action.PUBLISH, 1_000, 60_000).clusterRedisUri(redis.uri())
                .clusterLimit(Action.PUBLISH, 5, 60_000).clusterLease(Action.PUBLISH, 5)
                .clusterFallbackLocal(Action.PUBLISH, false).build();
            try (Floodgate gate = Floodgate.open(config))
            {
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                long admitted = 0;
                int refusedByCluster = 0;
                while (refusedByCluster < 20)
                {
                    final long result = gate.checkLimitInCaller("bob", Action.PUBLISH);
                    if (result == Floodgate.ADMITTED)
                    {
                        admitted++;
                    }
                    else if (admitted == 5)
                    {
                        refusedByCluster++; // the cluster is spent: every node claim from here on goes back
                    }
                    assertTrue(System.nanoTime() - deadline < 0, "the lease arrived within 30 s");
                }
                assertEquals(5, admitted, "the cluster's quota");
                try (FloodgateReader reader = FloodgateReader.open(file))
                {
                    final TableEntry window = reader.entries().stream()
                        .filter(e -> e.kind() == EntryKind.WINDOW && e.action() == Action.PUBLISH &&
                            e.label().equals("bob"))
                        .findFirst().orElseThrow();
                    long used = 0;
                    for (final long word : window.shardWords())
                    {
                        used += ShardedWindow.used(word);
                    }
                    assertEquals(5, used, "the node's window counts what both admitted, not the " +
                        "refused checks' claims");
                }
            }
        }
    }

    /** @return {admitted, checks} of {@link #THREADS} threads checking one identifier for {@link #RUN_MS}. */
    private static long[] hammer(final Floodgate gate, final Action action, final boolean window)
        throws InterruptedException
    {
        final AtomicLong admitted = new AtomicLong();
        final AtomicLong checks = new AtomicLong();
        ClusterKit.hammer(THREADS, RUN_MS, thread ->
        {
            final long result = window ? gate.checkLimitInCaller("hot", action) : gate.checkLimit("hot", action);
            checks.incrementAndGet();
            if (result == Floodgate.ADMITTED)
            {
                admitted.incrementAndGet();
            }
            else
            {
                assertTrue(result > 0 && result <= 1_000, "a retry-after: " + result);
            }
        }, () -> { });
        return new long[] {admitted.get(), checks.get()};
    }
}
