package dev.floodgate.cluster;

import dev.floodgate.Action;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lease script is loaded on every new connection, ahead of the calls on it: a node's first lease is one round
 * trip (EVALSHA), never a NOSCRIPT and an EVAL, and a restarted Redis learns the script again without a call.
 * The first lease's extra round trip mattered: on a loaded host it pushed a cold node's first lease past the 50 ms a
 * check waits for it.
 */
@Timeout(60)
class ScriptPreloadTest
{
    private static final ClusterLimit PLENTY = new ClusterLimit(1_000_000, 1_000);
    private static final LeaseKey KEY = LeaseKey.of(Action.PUBLISH, "preload");
    private static final String SHA1 = LeaseScript.load().sha1();

    @Test
    void theFirstLeaseOfANewConnectionIsOneEvalshaAndNoNoscript() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start();
            RedisLeases leases = RedisLeases.open(redis.uri(), Duration.ofSeconds(5)))
        {
            assertTrue(leases.awaitConnected(Duration.ofSeconds(20)), "connected");
            final Lease lease = leases.lease(KEY, PLENTY, "n", 1, 10);
            assertEquals(Lease.Outcome.APPLIED, lease.outcome(), lease::toString);
            assertEquals(0, leases.counters().scriptReloads(), "no NOSCRIPT: the script was there before the call");
            final String stats = redis.commands().info("commandstats");
            assertEquals(1, calls(stats, "evalsha"), stats);
            assertEquals(0, calls(stats, "eval"), stats);
            assertEquals(1, calls(stats, "script|load") + calls(stats, "script"), stats);
        }
    }

    @Test
    void aRestartedRedisIsSentTheScriptOnTheReconnectBeforeAnyCall() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start();
            RedisLeases leases = RedisLeases.open(redis.uri(), Duration.ofSeconds(5)))
        {
            assertTrue(leases.awaitConnected(Duration.ofSeconds(20)), "connected");
            assertTrue(knowsScript(redis), "loaded on the first connection");
            final String first = runId(redis);
            redis.restart();
            assertNotEquals(first, runId(redis), "a new server, which starts without scripts");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!knowsScript(redis))
            {
                assertTrue(System.nanoTime() - deadline < 0, "the reconnect loaded the script within 30 s");
                Thread.sleep(20);
            }
            // the client may reconnect before this thread's first command reaches the new server, so whether the
            // script was missing at first is a race; that no call sent it is not
            final String stats = redis.commands().info("commandstats");
            assertEquals(0, calls(stats, "evalsha") + calls(stats, "eval"), stats);
            assertEquals(0, leases.counters().roundTrips(), "no lease was asked for: the reconnect loaded it");
        }
    }

    private static boolean knowsScript(final LocalRedis redis)
    {
        return redis.commands().scriptExists(SHA1).get(0);
    }

    private static String runId(final LocalRedis redis)
    {
        final Matcher m = Pattern.compile("run_id:(\\w+)").matcher(redis.commands().info("server"));
        assertTrue(m.find(), "INFO server names the run");
        return m.group(1);
    }

    /** @return the calls INFO commandstats counts for {@code command}, 0 when it has none. */
    private static long calls(final String stats, final String command)
    {
        final Matcher m = Pattern.compile("cmdstat_" + Pattern.quote(command) + ":calls=(\\d+)").matcher(stats);
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }
}
