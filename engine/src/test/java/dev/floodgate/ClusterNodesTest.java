package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.LocalRedis;
import dev.floodgate.testkit.NoLettuceProbe;
import dev.floodgate.testkit.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Three nodes (three table files) of two JVMs each, every JVM checking one identifier against one cluster quota in
 * a real redis-server: the sum admitted across all six never exceeds the cluster bucket's capacity plus its refill
 * over the server time from before the first check to after the last.
 */
@Timeout(300)
class ClusterNodesTest
{
    private static final long LIMIT = 300;
    private static final long WINDOW_MS = 1_000;

    @TempDir
    Path dir;

    @Test
    void shouldNeedNoLettuceWithoutAClusterQuotaAndSayWhatIsMissingWithOne() throws Exception
    {
        final StringBuilder classPath = new StringBuilder();
        for (final String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator))
        {
            if (!entry.contains("lettuce") && !entry.contains("netty") && !entry.contains("reactor"))
            {
                classPath.append(classPath.length() == 0 ? "" : java.io.File.pathSeparator).append(entry);
            }
        }
        try (ChildJvm plain = ChildJvm.startWithClassPath(classPath.toString(), NoLettuceProbe.class,
            dir.resolve("plain.map").toString(), "-"))
        {
            assertEquals(1, Worker.field(plain.awaitLine("RESULT", 120), "admitted"), plain.transcript());
            assertEquals(0, plain.awaitExit(30), plain.transcript());
        }
        try (ChildJvm clustered = ChildJvm.startWithClassPath(classPath.toString(), NoLettuceProbe.class,
            dir.resolve("clustered.map").toString(), "redis://127.0.0.1:1/0"))
        {
            final String failed = clustered.awaitLine("FAILED", 120);
            assertTrue(failed.contains("cluster_redis_uri is set") && failed.contains("io.lettuce:lettuce-core"),
                failed);
            assertEquals(0, clustered.awaitExit(30), clustered.transcript());
        }
    }

    @Test
    void shouldAdmitNoMoreThanTheClusterQuotaAcrossSixJvmsOfThreeNodes() throws Exception
    {
        final Path go = dir.resolve("go");
        final List<ChildJvm> children = new ArrayList<>();
        try (LocalRedis redis = LocalRedis.start())
        {
            for (int node = 0; node < 3; node++)
            {
                for (int jvm = 0; jvm < 2; jvm++)
                {
                    children.add(ClusterKit.startWorker(dir.resolve("node" + node + ".map"), redis.uri(), LIMIT,
                        WINDOW_MS, 30, 2, 3_000, go));
                }
            }
            for (final ChildJvm child : children)
            {
                child.awaitLine("READY", 120);
            }
            final long startMs = redis.timeMs();
            Files.createFile(go);
            final List<String> results = new ArrayList<>();
            final long admitted = ClusterKit.admitted(children, results);
            final long checks = results.stream().mapToLong(result -> Worker.field(result, "checks")).sum();
            final long endMs = redis.timeMs();
            for (final ChildJvm child : children)
            {
                assertEquals(0, child.awaitExit(30), child.transcript());
            }
            final long bound = ClusterKit.allowance(LIMIT, WINDOW_MS, startMs, endMs);
            System.out.println("six JVMs of three nodes admitted " + admitted + " of " + checks + " checks; the " +
                "cluster's bound over " + (endMs - startMs) + " ms of server time is " + bound + ": " + results);
            assertTrue(admitted <= bound, "admitted " + admitted + " over the cluster's " + bound + ": " + results);
            assertTrue(admitted >= LIMIT, "the premise, the cluster quota was spent: " + results);
            // refused by the quota itself, not only for want of a lease: on a host loaded enough to starve Redis's
            // client (load 23 on 2 cores) the JVMs made 1,448 checks for 876 admitted, 314 of them waits for a lease
            final long unavailable = results.stream().mapToLong(result -> Worker.field(result, "retry100")).sum();
            assertTrue(checks > admitted + unavailable, "the premise, the JVMs asked for more: " + results);
            for (final String result : results)
            {
                assertTrue(Worker.field(result, "admitted") > 0, "every JVM got a share: " + results);
            }
        }
        finally
        {
            children.forEach(ChildJvm::close);
        }
    }
}
