package dev.floodgate;

import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A probe of a clustered action while Redis is down and the node's lease is spent: every check is refused by the
 * fallback (clusterFallbackLocal false), which the node knows without I/O (LeaseFetcher.isDown), yet the probe
 * reported the node's own tokens and a retry-after of 0 (found by review; failed before).
 */
@Timeout(120)
class ProbeClusterOutageTest
{
    @TempDir
    Path dir;

    @Test
    void aProbeDuringAnOutageSaysWhatTheRefusingCheckSays() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("node.map")).capacity(1_000)
                .limit(Action.PUBLISH, 1_000, 60_000).clusterRedisUri(redis.uri())
                .clusterLimit(Action.PUBLISH, 1_000, 60_000).clusterLease(Action.PUBLISH, 5)
                .clusterFallbackLocal(Action.PUBLISH, false).build();
            try (Floodgate gate = Floodgate.open(config))
            {
                ClusterKit.awaitAdmitted(gate, "alice", Action.PUBLISH);
                redis.kill9();
                long check = Floodgate.ADMITTED;
                for (int i = 0; i < 50 && check == Floodgate.ADMITTED; i++)
                {
                    check = gate.checkLimit("alice", Action.PUBLISH); // spends the lease, then the fallback refuses
                }
                assertTrue(check > 0, "the premise: the lease is spent and the fallback refuses: " + check);
                final Probe probe = gate.probe("alice", Action.PUBLISH);
                final long next = gate.checkLimit("alice", Action.PUBLISH);
                assertTrue(next > 0, "the premise: still refused: " + next);
                assertEquals(0, probe.remaining(), "probe " + probe + " while every check is refused with " + next);
                assertTrue(probe.retryAfterMs() > 0, "probe " + probe + " while every check is refused with " + next);
            }
        }
    }
}
