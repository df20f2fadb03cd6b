package dev.floodgate.tools;

import dev.floodgate.testkit.LocalRedis;
import dev.floodgate.tools.cluster.ServerConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** demo --cluster and bench --cluster-redis end to end, with a real redis-server. */
class ClusterDemoAndBenchTest
{
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void clusterDemoKeepsThreeNodesToTheClusterQuotaAndStopsItsRedis()
    {
        final Cli.Result result = Cli.run("demo", "--cluster", "--threads", "2", "--seconds", "2");
        final String out = result.out();
        assertEquals(0, result.code(), result::toString);
        assertTrue(out.contains("3 nodes (a table file and a broker JVM each)"), out);
        assertTrue(out.contains("#1") && out.contains("#2") && out.contains("#3") && out.contains("total"), out);
        assertTrue(out.matches("(?s).*\n(EXACT: 1 identifier, the cluster allowed 3,000 and 3,000 were admitted|" +
            "WITHIN: the cluster allowed 3,000, [\\d,]+ were admitted;).*"), out);
        assertTrue(out.matches("(?s).*round trips [\\d,]+ script calls at Redis.*"), out);
        assertTrue(out.contains("OK: 3 nodes together stayed within the cluster quota."), out);
        final Matcher redis = Pattern.compile("redis +(redis://\\S+)").matcher(out);
        assertTrue(redis.find(), out);
        assertFalse(ServerConnection.answers(redis.group(1)), "the demo's redis-server is stopped");
        final Matcher node = Pattern.compile("node 1 +(\\S+)").matcher(out);
        assertTrue(node.find(), out);
        assertFalse(Files.exists(Path.of(node.group(1)).getParent()), "the nodes' temporary directories are removed");
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS)
    void benchJudgesTheClusterQuotaAndCountsRoundTrips() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final Cli.Result result = Cli.run("bench", "--processes", "2", "--threads", "1", "--keys", "2",
                "--duration", "1s", "--cluster-redis", redis.uri(), "--cluster-limit", "500", "--cluster-lease", "50");
            final String out = result.out();
            assertEquals(0, result.code(), result::toString);
            assertTrue(out.contains("cluster quota 500 per "), out);
            assertTrue(out.matches("(?s).*round trips [\\d,]+ script calls at Redis.*"), out);
            assertTrue(out.matches("(?s).*\n(EXACT|WITHIN): .*"), out);
        }
    }

    @Test
    void badClusterOptionsAreUsageErrorsNamingTheValue()
    {
        final Cli.Result scheme = Cli.run("bench", "--cluster-redis", "http://127.0.0.1:6379");
        assertEquals(2, scheme.code(), scheme::toString);
        assertTrue(scheme.err().contains("--cluster-redis http://127.0.0.1:6379"), scheme.err());
        final Cli.Result lease = Cli.run("demo", "--cluster", "--cluster-limit", "100", "--cluster-lease", "101");
        assertEquals(2, lease.code(), lease::toString);
        assertTrue(lease.err().contains("--cluster-lease 101: expected 0 (a tenth of the limit) to the limit, 100"),
            lease.err());
        final Cli.Result window = Cli.run("bench", "--cluster-redis", "redis://127.0.0.1:1/0", "--cluster-window", "soon");
        assertEquals(2, window.code(), window::toString);
        assertTrue(window.err().contains("--cluster-window 'soon'"), window.err());
        final Cli.Result binds = Cli.run("bench", "--cluster-redis", "redis://127.0.0.1:1/0", "--limit", "10",
            "--cluster-limit", "20");
        assertEquals(2, binds.code(), binds::toString);
        assertTrue(binds.err().contains("--cluster-limit 20: expected at most the node's limit per key, 10"),
            binds.err());
    }
}
