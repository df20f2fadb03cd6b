package dev.floodgate.cluster;

import dev.floodgate.testkit.FreezableProxy;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A connection Lettuce is reconnecting stays the connector's one: waiting for it
 * ({@link RedisConnector#awaitConnected}) must not open a second that replaces it, leaving it unclosed and
 * reconnecting forever (two clients at the server once Redis is back, one more at each such outage).
 *
 * <p>Redis is made unreachable by a proxy that closes the connection and holds every new one unanswered
 * ({@link FreezableProxy#cut()}), so the reconnect and any other attempt are all pending when it comes back; waited
 * for for longer than {@link RedisConnector#RETRY}, the connector has had every chance to start another.
 */
@Timeout(60)
class RedisConnectorTest
{
    private static final long DEADLINE_S = 10;

    @Test
    void aReconnectingConnectionIsNotReplacedByAnother() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); FreezableProxy proxy = FreezableProxy.start(redis.port());
             RedisConnector connector = new RedisConnector(proxy.redisUri(), Duration.ofSeconds(1), commands -> { }))
        {
            assertTrue(connector.awaitConnected(Duration.ofSeconds(DEADLINE_S)), "connected through the proxy");
            assertEquals(1, clients(redis), "one connection at the server");

            proxy.cut();
            await(() -> !connector.isConnected(), "the connector saw its connection drop");
            // the connector's last attempt was before its first connection: RETRY from now, it may start another
            final long until = System.nanoTime() + RedisConnector.RETRY.toNanos() + TimeUnit.MILLISECONDS.toNanos(500);
            while (System.nanoTime() - until < 0)
            {
                assertFalse(connector.awaitConnected(Duration.ofMillis(300)), "nothing answers while cut");
            }
            final int attempts = proxy.accepted() - 1;

            proxy.release();
            assertTrue(connector.awaitConnected(Duration.ofSeconds(DEADLINE_S)), "connected again");
            // every attempt held was forwarded by release(): the server sees them all once it accepted them
            await(() -> clients(redis) == proxy.forwarding(), "the server sees every connection forwarded");
            System.out.printf("after the outage: %d connection attempts held, %d clients at the server%n", attempts,
                clients(redis));
            assertEquals(1, clients(redis), "one connection at the server, the reconnected one: " + attempts
                + " attempts were held while cut");
            assertEquals("PONG", connector.commands().ping().get(DEADLINE_S, TimeUnit.SECONDS));
        }
    }

    /** @return the clients connected to the server, the test's own excepted. */
    private static long clients(final LocalRedis redis)
    {
        final String self = "id=" + redis.commands().clientId() + " ";
        return Arrays.stream(redis.commands().clientList().split("\n")).map(String::trim)
            .filter(line -> !line.isEmpty() && !line.startsWith(self)).count();
    }

    /** Polls {@code condition} every 10 ms until it holds, for {@value #DEADLINE_S} s at most. */
    private static void await(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(DEADLINE_S);
        while (!condition.getAsBoolean())
        {
            assertTrue(System.nanoTime() - deadline < 0, what + " within " + DEADLINE_S + " s");
            Thread.sleep(10);
        }
    }
}
