package dev.floodgate.jmh;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/** A Lettuce connection and the per-check script, for {@link ClusterBenchmark#luaPerCheckLettuce} only. */
@State(Scope.Benchmark)
public class LuaClient
{
    private static final String[] KEYS = RedisBenchmark.KEYS.toArray(new String[0]);
    private static final String[] ARGS = RedisBenchmark.ARGS.toArray(new String[0]);

    RedisCalls redis;
    RedisCommands<String, String> commands;
    String sha;
    volatile long refused;

    @Setup(Level.Trial)
    public void setUp()
    {
        redis = RedisCalls.connect();
        commands = redis.connection.sync();
        sha = commands.scriptLoad(RedisBenchmark.script());
        if (check() != 1L)
        {
            redis.close();
            throw new IllegalStateException("the Redis token bucket refused in the sanity check");
        }
    }

    long check()
    {
        final Long result = commands.evalsha(sha, ScriptOutputType.INTEGER, KEYS, ARGS);
        return result;
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        redis.close();
        if (refused != 0)
        {
            throw new IllegalStateException("the Redis token bucket refused " + refused + " checks");
        }
    }
}
