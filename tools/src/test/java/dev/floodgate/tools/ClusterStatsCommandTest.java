package dev.floodgate.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code floodgate stats} ({@code --json}, {@code --prometheus}) and {@code dump} on the table of a broker JVM with
 * cluster quotas ({@link ClusterWriter}), against a real redis-server: the CLI, a separate process never connected
 * to Redis, shows the leases the node holds, their unused tokens (the sum of the lease entries' balances
 * {@code dump} shows), round trips equal to the broker's client's count and to the server's, and refusals by the
 * cluster and by the fallback (Redis killed) apart from the node's own.
 */
@Timeout(120)
class ClusterStatsCommandTest
{
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void statsAndDumpShowTheNodesLeasesRoundTripsClusterRefusalsAndFallbacks() throws Exception
    {
        final Path table = dir.resolve("node.map");
        final Path go = dir.resolve("go");
        try (LocalRedis redis = LocalRedis.start();
            ChildJvm broker = ChildJvm.start(ClusterWriter.class, table.toString(), redis.uri(), go.toString()))
        {
            final String phase1 = broker.awaitLine("PHASE1 ", 60);
            final long trips = figure(phase1, "roundTrips");
            // checks answered by the fallback while a cold lease was late (none on a quiet host): a PUBLISH admitted
            // locally spent no leased token; an AUTH or DASHBOARD_API check refused was checked again
            final long local = figure(phase1, "localFallbacks");
            final long authRefused = figure(phase1, "authFallbacks");
            final long dashboardRefused = figure(phase1, "dashboardFallbacks");
            final long refusedByFallback = authRefused + dashboardRefused;
            final long unused = 33 + local;
            final JsonNode stats = statsJson(table);
            final JsonNode cluster = stats.get("cluster");
            assertEquals(5, cluster.get("leasesHeld").asLong(), cluster::toString);
            // PUBLISH leased 10 three times and spent 3, 2, 1; AUTH 10, spent 1; DASHBOARD_API 2, spent
            assertEquals(unused, cluster.get("tokensUnused").asLong(), phase1 + " " + cluster);
            assertEquals(leaseBalances(table), cluster.get("tokensUnused").asLong(), "the sum of dump's balances");
            assertEquals(trips, cluster.get("roundTrips").asLong(), "the broker's client's count");
            assertEquals(redis.scriptCalls(), trips, "the server's count");
            assertEquals(42, cluster.get("tokensLeased").asLong(), cluster::toString);
            assertEquals(2, cluster.get("refused").asLong(), "dan's refusals by the cluster");
            assertEquals(refusedByFallback, cluster.get("fallbacksRefused").asLong(), phase1 + " " + cluster);
            assertEquals(local, cluster.get("fallbacksLocal").asLong(), phase1 + " " + cluster);
            assertEquals(2 + dashboardRefused, stats.at("/actions/dashboard_api/refused").asLong(),
                "refused, by the cluster");
            assertEquals(3, stats.at("/actions/publish/leases").asLong(), stats::toString);
            assertEquals(1 + authRefused, stats.at("/actions/auth/refused").asLong(), "refused, by the node");
            assertTrue(cluster.get("connection").asText().contains("floodgate.cluster.connected"), cluster::toString);

            final Cli.Result text = Cli.run("stats", "--file", table.toString());
            System.out.println(text.out());
            assertTrue(text.out().contains("cluster      5 leases held, " + unused + " tokens leased and unused\n"),
                text::toString);
            assertTrue(text.out().contains(" " + trips + " round trips, 42 tokens leased"), text::toString);
            assertTrue(text.out().contains("2 refused by the cluster; fallbacks: " + refusedByFallback +
                " refused, " + local + " admitted locally"), text::toString);

            final Cli.Result prometheus = Cli.run("stats", "--prometheus", "--file", table.toString());
            assertEquals(0, prometheus.code(), prometheus::toString);
            assertEquals(5, sample(prometheus.out(), "floodgate_cluster_leases"), prometheus::toString);
            assertEquals(unused, sample(prometheus.out(), "floodgate_cluster_tokens_unused"));
            assertEquals(trips, sample(prometheus.out(), "floodgate_cluster_round_trips_total"));
            assertEquals(2, sample(prometheus.out(), "floodgate_cluster_refused_total"));
            assertEquals(2 + dashboardRefused, sample(prometheus.out(),
                "floodgate_checks_total{action=\"dashboard_api\",outcome=\"refused\"}"));
            assertEquals(5, sample(prometheus.out(), "floodgate_table_entries{action=\"publish\",kind=\"lease\"}") +
                sample(prometheus.out(), "floodgate_table_entries{action=\"auth\",kind=\"lease\"}") +
                sample(prometheus.out(), "floodgate_table_entries{action=\"dashboard_api\",kind=\"lease\"}"));

            final Cli.Result dump = Cli.run("dump", "--kind", "lease", "--file", table.toString());
            assertTrue(dump.out().contains(" tokens leased, unspent; next seq "), dump::toString);
            assertTrue(dump.out().contains("5 entries\n"), dump::toString);

            // Redis killed: erin's AUTH check is refused by the fallback, frank's PUBLISH admitted locally
            redis.kill9();
            Files.createFile(go);
            final String done = broker.awaitLine("DONE ", 60);
            assertEquals(0, broker.awaitExit(30), broker::transcript);
            final JsonNode after = statsJson(table);
            final JsonNode down = after.get("cluster");
            assertEquals(refusedByFallback + 1, down.get("fallbacksRefused").asLong(), down::toString);
            assertEquals(local + 1, down.get("fallbacksLocal").asLong(), down::toString);
            assertEquals(2, down.get("refused").asLong(), "the fallbacks are not the cluster's refusals");
            // the broker's figures were read before its close; as the node's last JVM the close then tries to give
            // its leases' unspent tokens back: the first refund ends unavailable (Redis is dead) and the give-back
            // stops, so the file holds one unavailable call more, and at most one round trip more (none when the
            // client already knew it was disconnected and sent nothing)
            assertEquals(figure(done, "unavailable") + 1, down.get("unavailable").asLong(), done + " " + down);
            final long tripsAfter = down.get("roundTrips").asLong();
            assertTrue(tripsAfter == figure(done, "roundTrips") || tripsAfter == figure(done, "roundTrips") + 1,
                done + " " + down);
            assertEquals(2 + authRefused, after.at("/actions/auth/refused").asLong(),
                "carol's by the node, erin's by the fallback");
            final String closed = Cli.run("stats", "--prometheus", "--file", table.toString()).out();
            assertEquals(refusedByFallback + 1,
                sample(closed, "floodgate_cluster_fallbacks_total{fallback=\"refuse\"}"), closed);
            assertEquals(local + 1, sample(closed, "floodgate_cluster_fallbacks_total{fallback=\"local\"}"), closed);
        }
    }

    private static JsonNode statsJson(final Path table) throws IOException
    {
        final Cli.Result result = Cli.run("stats", "--json", "--file", table.toString());
        assertEquals(0, result.code(), result::toString);
        return JSON.readTree(result.out());
    }

    /** @return the sum of the live lease entries' balances {@code dump --json} shows. */
    private static long leaseBalances(final Path table) throws IOException
    {
        final Cli.Result dump = Cli.run("dump", "--kind", "lease", "--json", "--file", table.toString());
        long sum = 0;
        for (final JsonNode entry : JSON.readTree(dump.out()))
        {
            assertEquals("lease", entry.get("kind").asText());
            assertTrue(entry.get("sequence").asLong() > 0, entry::toString);
            sum += entry.get("balance").asLong();
        }
        return sum;
    }

    private static long figure(final String line, final String name)
    {
        final Matcher m = Pattern.compile(name + "=(\\d+)").matcher(line);
        assertTrue(m.find(), line);
        return Long.parseLong(m.group(1));
    }

    /** @return the value of the sample named exactly so (labels included) in the Prometheus text. */
    private static long sample(final String text, final String name)
    {
        for (final String line : text.split("\n"))
        {
            if (line.startsWith(name + " "))
            {
                return (long)Double.parseDouble(line.substring(name.length() + 1).trim().split(" ")[0]);
            }
        }
        throw new AssertionError("no sample " + name + " in:\n" + text);
    }
}
