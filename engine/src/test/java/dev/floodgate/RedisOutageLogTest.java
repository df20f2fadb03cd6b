package dev.floodgate;

import dev.floodgate.testkit.Await;
import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.LocalRedis;
import dev.floodgate.testkit.LoggedWarnings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * README.md (Cluster-wide quotas): while Redis is unavailable each action answers its fallback, admitting on the
 * node's quota alone ({@code local}) or refusing ({@code refuse}). When a node's established connection dropped (the
 * broker trial killed its redis-server), the engine's own logger said nothing: only Lettuce's SLF4J lines, which a
 * broker without an SLF4J provider never sees, so a node ran on its fallbacks with no line of its own saying so. The
 * loss must be said once per outage, naming the (redacted) URI, however many reconnects fail meanwhile.
 */
@Timeout(90)
class RedisOutageLogTest
{
    @TempDir
    Path dir;

    @Test
    void shouldSayOnceThatTheConnectionToRedisWasLost() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); LoggedWarnings log = LoggedWarnings.record())
        {
            final FloodgateConfig config = ClusterKit.publishNode(dir.resolve("node.map"), redis.uri(), 1_000,
                60_000, 10).build();
            try (Floodgate gate = Floodgate.open(config))
            {
                ClusterKit.awaitAdmitted(gate, "alice", Action.PUBLISH);
                redis.kill9();
                Await.until("the node saw Redis go", 30,
                    () -> gate.processCluster().connection() == ClusterStats.Connection.DOWN);
                Await.until("the loss was said", 30, () -> !lost(log).isEmpty());
                assertTrue(lost(log).get(0).contains(redis.uri()), lost(log).get(0));
                redis.restart(); // Lettuce's reconnects failed meanwhile, each no new outage
                Await.until("the node reconnected", 30,
                    () -> gate.processCluster().connection() == ClusterStats.Connection.UP);
            }
            assertEquals(1, lost(log).size(), "one warning for the outage, none for the close: " + log.warnings());
        }
    }

    private static List<String> lost(final LoggedWarnings log)
    {
        return log.warnings().stream().filter(w -> w.contains("lost")).toList();
    }
}
