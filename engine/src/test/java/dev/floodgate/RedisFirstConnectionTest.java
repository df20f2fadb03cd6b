package dev.floodgate;

import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.FreezableProxy;
import dev.floodgate.testkit.LocalRedis;
import dev.floodgate.testkit.LoggedWarnings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * README.md (Cluster-wide quotas): "{@code Floodgate.open} waits at most 5 s for Redis's first connection, and opens
 * anyway". A broker whose Redis was neither up nor refused within that wait (a loaded host starting Lettuce, a
 * firewall dropping the packets) opened with every cluster check answered by its fallback, and no line said so: only a
 * connection that failed outright was logged (found by the broker trial, on a host at load 16). Opening without the
 * connection must be said once, naming the (redacted) URI and what the checks answer meanwhile.
 */
@Timeout(60)
class RedisFirstConnectionTest
{
    @TempDir
    Path dir;

    @Test
    void shouldSayThatItOpensBeforeRedisIsConnected() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); FreezableProxy proxy = FreezableProxy.start(redis.port()))
        {
            proxy.cut(); // every connection is accepted and held unanswered: neither up nor failed within the wait
            final FloodgateConfig config = ClusterKit.publishNode(dir.resolve("node.map"), proxy.redisUri(), 100,
                60_000, 10).build();
            final List<String> warnings;
            try (LoggedWarnings log = LoggedWarnings.record(); Floodgate gate = Floodgate.open(config))
            {
                assertEquals(ClusterStats.Connection.DOWN, gate.processCluster().connection(), "held by the proxy");
                warnings = log.warnings();
            }
            final List<String> said = warnings.stream().filter(w -> w.contains("not connected")).toList();
            assertEquals(1, said.size(), "one warning that the node opened without Redis; warnings: " + warnings);
            assertTrue(said.get(0).contains(proxy.redisUri()), said.get(0));
            assertTrue(said.get(0).contains("publish_cluster_fallback=refuse"), said.get(0));
        }
    }

    /**
     * A URI the configuration accepts and Redis refuses (a database beyond the server's 16, a password it does not
     * know) was logged as "cannot connect to Redis at URI (...): RedisConnectionException: Unable to connect to
     * 127.0.0.1/&lt;unresolved&gt;:PORT": the port of a server that is up, and not Redis's own answer, so the operator
     * looked at the network (found by the broker trial). The warning must carry Redis's reason, and no password.
     *
     * <p>Each open waits out {@code Floodgate.open}'s 5 s for a connection that never comes, so the two nodes open at
     * once, each against a server of its own (one that asks for a password), and each warning is told apart by its
     * server's port: 5 s of the test's time instead of 10.
     */
    @Test
    void shouldSayWhyRedisRefusedTheConnection() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); LocalRedis secured = LocalRedis.start())
        {
            secured.commands().configSet("requirepass", "the-right-one"); // the test's own connection stays in
            final String outOfRange = "redis://127.0.0.1:" + redis.port() + "/16";
            final String wrongPassword = "redis://:hunter2@127.0.0.1:" + secured.port() + "/0";
            final List<String> warnings;
            try (LoggedWarnings log = LoggedWarnings.record())
            {
                final CompletableFuture<Void> first = CompletableFuture.runAsync(() -> open(outOfRange));
                final CompletableFuture<Void> second = CompletableFuture.runAsync(() -> open(wrongPassword));
                first.get(60, TimeUnit.SECONDS);
                second.get(60, TimeUnit.SECONDS);
                warnings = log.warnings();
            }
            assertTrue(failureOf(warnings, redis.port()).contains("DB index is out of range"));
            final String said = failureOf(warnings, secured.port());
            assertTrue(said.contains("WRONGPASS") && !said.contains("hunter2"), said);
        }
    }

    /** Opens a node on {@code uri} and closes it: the open logs what it makes of the connection. */
    private void open(final String uri)
    {
        final FloodgateConfig config = ClusterKit.publishNode(dir.resolve("n" + uri.hashCode() + ".map"), uri, 100,
            60_000, 10).build();
        Floodgate.open(config).close();
    }

    /** @return the one warning about the failed connection to the server on {@code port}. */
    private static String failureOf(final List<String> warnings, final int port)
    {
        final List<String> said = warnings.stream()
            .filter(w -> w.startsWith("cannot connect") && w.contains("127.0.0.1:" + port + "/")).toList();
        assertEquals(1, said.size(), "one warning for the failed connection on port " + port + "; warnings: " +
            warnings);
        return said.get(0);
    }
}
