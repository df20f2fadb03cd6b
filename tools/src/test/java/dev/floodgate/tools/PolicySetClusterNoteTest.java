package dev.floodgate.tools;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code policy set ACTION.limit=0} switches the node's quota off, never a broker's cluster quota (each JVM's own
 * configuration): when the table holds lease entries of the action, the command says so on standard error, naming
 * the action, what stays enforced and the key that lifts it too; for an action without any, and on a table without
 * a cluster quota, it says nothing more than before. The exit code is 0 either way.
 */
@Timeout(120)
class PolicySetClusterNoteTest
{
    private static final String NOTE = "floodgate policy set: note: publish's node quota is off, but its cluster " +
        "quota stays in force in every broker JVM configured with one (cluster_redis_uri and " +
        "publish_cluster_rate_limit): this table holds 1 publish lease such JVMs took, so publish may still be " +
        "refused by the cluster quota. To lift it too, set publish_cluster_rate_limit=0 " +
        "(FLOODGATE_PUBLISH_CLUSTER_RATE_LIMIT=0) in those brokers' configuration and restart them (the cluster " +
        "keys are read at start).\n";

    @TempDir
    Path dir;

    @Test
    void switchingOffAnActionTheBrokersLeaseForSaysItsClusterQuotaStaysAndHowToLiftIt() throws Exception
    {
        final Path table = dir.resolve("node.map");
        final Path go = dir.resolve("go");
        try (LocalRedis redis = LocalRedis.start();
            ChildJvm broker = ChildJvm.start(ClusterLeaser.class, table.toString(), redis.uri(), go.toString()))
        {
            broker.awaitLine("LEASED", 60);
            // as the operator runs it, in its own JVM: standard error holds everything they would see
            final Cli.Result off = CliProcess.run(dir, Map.of(), "policy", "set", "publish.limit=0",
                "dashboard_api.limit=0", "--file", table.toString());
            assertEquals(0, off.code(), off::toString);
            assertTrue(off.out().startsWith("published generation 2: dashboard_api_rate_limit: 300 -> 0, " +
                "publish_rate_limit: 1000 -> 0\n"), off::toString);
            assertEquals(NOTE, off.err(), "one note, for publish alone: dashboard_api has no cluster quota");

            // named again while off: nothing published, and the same note (what the operator meant is the same)
            final Cli.Result again = Cli.run("policy", "set", "publish.limit=0", "--file", table.toString());
            assertEquals(0, again.code(), again::toString);
            assertTrue(again.out().startsWith("policy unchanged"), again::toString);
            assertEquals(NOTE, again.err());

            // a change that switches nothing off walks nothing and says nothing
            final Cli.Result window = Cli.run("policy", "set", "publish.window_ms=1000", "--file", table.toString());
            assertEquals(0, window.code(), window::toString);
            assertEquals("", window.err());

            // and the note is true: the broker still refuses alice past her cluster quota, the node's being off
            Files.createFile(go);
            assertEquals("AFTER admitted=4 refused=6 nodeLimit=0", broker.awaitLine("AFTER", 60),
                broker::transcript);
            assertEquals(0, broker.awaitExit(30), broker::transcript);
        }
    }

    @Test
    void aTableWithoutClusterLeasesGetsNoNote() throws Exception
    {
        final Path table = dir.resolve("t.map");
        ChildJvm.run(dir, TestWriter.class, table.toString());
        final Cli.Result off = Cli.run("policy", "set", "publish.limit=0", "--file", table.toString());
        assertEquals(0, off.code(), off::toString);
        assertTrue(off.out().startsWith("published generation 2: publish_rate_limit: 100 -> 0\n"), off::toString);
        assertEquals("", off.err(), off::toString);
    }
}
