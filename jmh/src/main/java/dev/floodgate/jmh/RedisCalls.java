package dev.floodgate.jmh;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;

import java.time.Duration;

/**
 * The private Redis of a benchmark run (started by {@code jmh/run} on 127.0.0.1, port
 * {@code -Dfloodgate.redis.port}), and what it counts: script calls from {@code INFO commandstats}, so round trips
 * are measured at the server, whoever made them (the engine keeps its own counts internal).
 */
final class RedisCalls implements AutoCloseable
{
    static final String HOST = "127.0.0.1";

    final RedisClient client;
    final StatefulRedisConnection<String, String> connection;

    private RedisCalls(final RedisClient client, final StatefulRedisConnection<String, String> connection)
    {
        this.client = client;
        this.connection = connection;
    }

    static int port()
    {
        return Integer.getInteger("floodgate.redis.port", 6379);
    }

    /** @return {@code redis://127.0.0.1:<port>/0}. */
    static String uri()
    {
        return "redis://" + HOST + ":" + port() + "/0";
    }

    /** @return a connection to the run's Redis, or an error that says how to get one. */
    static RedisCalls connect()
    {
        final RedisClient client = RedisClient.create(RedisURI.builder().withHost(HOST).withPort(port())
            .withTimeout(Duration.ofSeconds(5)).build());
        try
        {
            return new RedisCalls(client, client.connect());
        }
        catch (final RuntimeException ex)
        {
            client.shutdown();
            throw new IllegalStateException("no Redis on " + HOST + ":" + port() + " (jmh/run starts one; run " +
                "the benchmark through it, or start redis-server and pass -Dfloodgate.redis.port): " + ex.getMessage(),
                ex);
        }
    }

    /** @return EVALSHA plus EVAL calls the server has run since it started (or since CONFIG RESETSTAT). */
    long scriptCalls()
    {
        long calls = 0;
        for (final String line : connection.sync().info("commandstats").split("\r?\n"))
        {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:"))
            {
                final int from = line.indexOf("calls=") + "calls=".length();
                int to = line.indexOf(',', from);
                to = to < 0 ? line.length() : to;
                calls += Long.parseLong(line.substring(from, to));
            }
        }
        return calls;
    }

    @Override
    public void close()
    {
        connection.close();
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
