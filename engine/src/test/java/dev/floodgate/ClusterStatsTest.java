package dev.floodgate;

import dev.floodgate.metrics.FloodgateMetrics;
import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableEntry;
import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.LocalRedis;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an operator reads about the cluster quota, against a real redis-server: the leases the node holds and
 * their unspent tokens (the sum of the lease entries' balances a reader decodes), round trips equal to the
 * client's and to the server's own count, and checks refused by the cluster, refused or admitted by the fallback
 * with Redis killed, each counted apart from the node's own refusals, in {@link Stats}, in
 * {@link Floodgate#processCluster()} and in the meters.
 */
@Timeout(120)
class ClusterStatsTest
{
    @TempDir
    Path dir;

    @Test
    void shouldShowLeasesRoundTripsAndTellClusterRefusalsAndFallbacksFromNodeRefusals() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            // a still ticker: a check waits for its identifier's first lease until it is answered (the 50 ms bound is
            // the ticker's), so a round trip slower than that beside CPU hogs is no fallback or refusal here (one
            // PUBLISH admitted on the local fallback left 34 unused instead of 33)
            final FloodgateConfig config = ClusterKit.statsNode(dir.resolve("node.map"), redis.uri()).toBuilder()
                .ticker(new ManualTicker(System.nanoTime())).build();
            final SimpleMeterRegistry registry = new SimpleMeterRegistry();
            try (Floodgate gate = Floodgate.open(config))
            {
                new FloodgateMetrics(gate).bindTo(registry);
                final long[] spent = {3, 2, 1};
                spend(gate, spent);
                // AUTH: the node's quota of 1 refuses carol's second check before the cluster is asked
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("carol", Action.AUTH));
                assertTrue(gate.checkLimit("carol", Action.AUTH) > 0);
                // DASHBOARD_API: a cluster quota of 2 a minute; the third and fourth checks are the cluster's refusals
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("dan", Action.DASHBOARD_API));
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("dan", Action.DASHBOARD_API));
                assertTrue(gate.checkLimit("dan", Action.DASHBOARD_API) > 0);
                assertTrue(gate.checkLimit("dan", Action.DASHBOARD_API) > 0);

                final Stats stats = gate.stats();
                final ClusterStats.Node node = stats.cluster();
                final ClusterStats.Process process = gate.processCluster();
                // PUBLISH: three identifiers leased 10 each and spent 3, 2 and 1; AUTH: carol's lease of 10, 1 spent;
                // DASHBOARD_API: dan's lease of 2, spent
                assertEquals(5, node.leasesHeld(), node.toString());
                assertEquals(7 + 8 + 9 + 9, node.tokensUnused(), node.toString());
                assertEquals(balances(config.file()), node.tokensUnused(), "the sum of the lease entries' balances");
                assertEquals(Map.of(Action.AUTH, 1L, Action.DASHBOARD_AUTH, 0L, Action.DASHBOARD_API, 1L,
                    Action.PUBLISH, 3L, Action.SUBSCRIBE, 0L), leases(config.file()), "the lease entries per action");
                assertEquals(process.roundTrips(), node.roundTrips(), "the file's round trips are the client's");
                assertEquals(redis.scriptCalls(), node.roundTrips(), "and the server's");
                assertEquals(10 * 4 + 2, node.tokensLeased(), node.toString());
                assertEquals(2, node.refused(), "dan's refusals are the cluster's");
                assertEquals(new ClusterStats.Checks(2, 0, 0), process.checks().get(Action.DASHBOARD_API));
                assertEquals(new ClusterStats.Checks(0, 0, 0), process.checks().get(Action.AUTH),
                    "carol's refusal was the node's, not the cluster's");
                assertEquals(1, stats.checks().get(Action.AUTH).refused(), "and is the action's refusal");
                assertEquals(2, stats.checks().get(Action.DASHBOARD_API).refused(), "refusals stay refusals");
                assertEquals(ClusterStats.Connection.UP, stats.clusterConnection());
                assertEquals(ClusterStats.Connection.UP, process.connection());
                assertEquals(1, registry.get("floodgate.cluster.connected").gauge().value());
                assertEquals(2, registry.get("floodgate.cluster.refused").tags("action", "dashboard_api")
                    .functionCounter().count());
                assertEquals(0, registry.get("floodgate.cluster.refused").tags("action", "auth")
                    .functionCounter().count());
                assertEquals(2, registry.get("floodgate.checks").tags("action", "dashboard_api", "outcome", "refused")
                    .functionCounter().count(), "the contract's outcomes are unchanged");
                assertEquals(process.roundTrips(), registry.get("floodgate.cluster.round.trips").functionCounter()
                    .count());
                assertEquals(5, registry.get("floodgate.cluster.leases").gauge().value());
                assertEquals(33, registry.get("floodgate.cluster.tokens.unused").gauge().value());

                // Redis killed: new identifiers need a lease; AUTH falls back to refusing, PUBLISH to the node's quota
                redis.kill9();
                final long retry = gate.checkLimit("erin", Action.AUTH);
                assertEquals(config.clusterRetryAfterMs(), retry, "AUTH refuses without a lease");
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("frank", Action.PUBLISH), "PUBLISH admits locally");
                // the connection's loss reaches the client on its own thread: wait for it, bounded
                final long deadline = System.nanoTime() + 10_000_000_000L;
                while (gate.processCluster().connection() == ClusterStats.Connection.UP && System.nanoTime() < deadline)
                {
                    Thread.onSpinWait();
                }
                final Stats down = gate.stats();
                final ClusterStats.Process after = gate.processCluster();
                assertEquals(new ClusterStats.Checks(0, 1, 0), after.checks().get(Action.AUTH));
                assertEquals(new ClusterStats.Checks(0, 0, 1), after.checks().get(Action.PUBLISH));
                assertEquals(1, down.cluster().fallbacksRefused(), down.cluster().toString());
                assertEquals(1, down.cluster().fallbacksLocal(), down.cluster().toString());
                assertEquals(2, down.cluster().refused(), "the fallbacks are not the cluster's refusals");
                assertEquals(2, down.checks().get(Action.AUTH).refused(), "carol's and erin's");
                assertEquals(2, down.cluster().unavailable(), down.cluster().toString());
                assertEquals(after.roundTrips(), down.cluster().roundTrips());
                assertNotEquals(ClusterStats.Connection.UP, down.clusterConnection());
                assertEquals(0, registry.get("floodgate.cluster.connected").gauge().value());
                assertEquals(1, registry.get("floodgate.cluster.fallbacks").tags("action", "auth", "fallback", "refuse")
                    .functionCounter().count());
                assertEquals(1, registry.get("floodgate.cluster.fallbacks").tags("action", "publish", "fallback",
                    "local").functionCounter().count());
            }
        }
    }

    @Test
    void shouldShowNoClusterOnANodeWithoutOne()
    {
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("plain.map")).capacity(1_000)
            .limit(Action.PUBLISH, 10, 1_000).build();
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Floodgate gate = Floodgate.open(config))
        {
            new FloodgateMetrics(gate).bindTo(registry);
            gate.checkLimit("alice", Action.PUBLISH);
            assertEquals(ClusterStats.Node.NONE, gate.stats().cluster());
            assertEquals(ClusterStats.Connection.NONE, gate.stats().clusterConnection());
            assertEquals(ClusterStats.Connection.NONE, gate.processCluster().connection());
            assertEquals(null, registry.find("floodgate.cluster.connected").gauge(), "no cluster meters");
            assertTrue(leases(config.file()).values().stream().allMatch(count -> count == 0), "no lease entries");
        }
    }

    /**
     * Spends {@code spent[i]} tokens of identifier {@code user-i} one check at a time: each leases 10 on its first
     * check and keeps at least half a lease, so no refill starts.
     */
    private static void spend(final Floodgate gate, final long[] spent)
    {
        for (int i = 0; i < spent.length; i++)
        {
            for (int k = 0; k < spent[i]; k++)
            {
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("user-" + i, Action.PUBLISH));
            }
        }
    }

    /** @return the live lease entries per action, as the read-only reader counts them. */
    private static Map<Action, Long> leases(final Path file)
    {
        try (FloodgateReader reader = FloodgateReader.open(file))
        {
            return reader.countLeases();
        }
    }

    /** @return the sum of the live lease entries' balances, as the read-only reader decodes them. */
    static long balances(final Path file)
    {
        try (FloodgateReader reader = FloodgateReader.open(file))
        {
            final List<TableEntry> entries = reader.entries();
            return entries.stream().filter(e -> e.kind() == EntryKind.LEASE && !e.tombstoned())
                .mapToLong(TableEntry::leaseBalance).sum();
        }
    }
}
