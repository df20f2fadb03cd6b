package dev.floodgate;

import dev.floodgate.testkit.LoggedWarnings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A blank {@code cluster_redis_uri} means no cluster quota (the contract, asserted in {@link FloodgateConfigTest}),
 * so a cluster limit set without it has no effect: an operator who forgot the URI ran on the node's quota alone and
 * nothing said so. Opening such a configuration must warn, naming the keys set and the missing URI.
 */
@Timeout(60)
class ClusterWithoutUriTest
{
    @TempDir
    Path dir;

    @Test
    void shouldWarnThatAClusterLimitWithoutAUriHasNoEffect()
    {
        final FloodgateConfig config = FloodgateConfig.fromKeyValues(Map.of(
            "file", dir.resolve("t.map").toString(),
            "auth_cluster_rate_limit", "100",
            "publish_rate_limit", "1000",
            "publish_cluster_rate_limit", "5000"));
        final List<String> warnings;
        try (LoggedWarnings log = LoggedWarnings.record(); Floodgate gate = Floodgate.open(config))
        {
            assertFalse(gate.config().hasClusterQuota(), "the contract: no URI, no cluster quota");
            warnings = log.warnings();
        }
        final List<String> said = warnings.stream().filter(w -> w.contains("cluster_redis_uri")).toList();
        assertEquals(1, said.size(), "one warning for the cluster keys without a URI; warnings: " + warnings);
        assertTrue(said.get(0).contains("auth_cluster_rate_limit, publish_cluster_rate_limit") &&
            said.get(0).contains("no cluster quota"), said.get(0));
    }

    @Test
    void shouldSayNothingWithoutAClusterLimit()
    {
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("t.map"))
            .clusterLimit(Action.AUTH, 100, 0).build(); // a window of 0 is no cluster quota, URI or not
        try (LoggedWarnings log = LoggedWarnings.record(); Floodgate gate = Floodgate.open(config))
        {
            assertEquals(List.of(), log.warnings().stream().filter(w -> w.contains("cluster")).toList());
        }
    }
}
