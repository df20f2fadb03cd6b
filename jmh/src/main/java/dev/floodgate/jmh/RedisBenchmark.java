package dev.floodgate.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import redis.clients.jedis.Jedis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The out-of-process alternative: a token bucket in a Lua script on a Redis server on 127.0.0.1 (started by
 * {@code jmh/run} on port {@code -Dfloodgate.redis.port}), one hot key, one connection per thread with no
 * pool (a floor: a pool adds a borrow and a return). Reported in ns/op like the rest; it is microseconds.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Thread)
public class RedisBenchmark
{
    /** Only ever loopback. */
    static final String HOST = "127.0.0.1";
    static final List<String> KEYS = List.of("floodgate:jmh:" + HotKeyBenchmark.USER);
    /** Capacity 10^9, refilling 1000 per microsecond (10^9 per second): never refuses at these rates. */
    static final List<String> ARGS = List.of("1000000000", "1000");

    Jedis jedis;
    String sha;
    long refused;

    @Setup(Level.Trial)
    public void setUp()
    {
        final int port = Integer.getInteger("floodgate.redis.port", 6379);
        jedis = new Jedis(HOST, port);
        try
        {
            sha = jedis.scriptLoad(script());
        }
        catch (final RuntimeException ex)
        {
            jedis.close();
            throw new IllegalStateException("no Redis on " + HOST + ":" + port + " (jmh/run starts one; run the " +
                "suite through it or exclude RedisBenchmark): " + ex.getMessage(), ex);
        }
        if (check() != 1L)
        {
            throw new IllegalStateException("the Redis token bucket refused in the sanity check");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        jedis.close();
        if (refused != 0)
        {
            throw new IllegalStateException("the Redis token bucket refused " + refused + " checks");
        }
    }

    @Benchmark
    public long tokenBucketLua()
    {
        final long result = check();
        if (result != 1L)
        {
            refused++;
        }
        return result;
    }

    private long check()
    {
        return (Long)jedis.evalsha(sha, KEYS, ARGS);
    }

    static String script()
    {
        try (InputStream in = RedisBenchmark.class.getResourceAsStream("token_bucket.lua"))
        {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
