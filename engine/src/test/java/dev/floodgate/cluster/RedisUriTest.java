package dev.floodgate.cluster;

import io.lettuce.core.resource.Transports;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * A URI the client can never connect with is refused when it is opened, as {@link RedisLeases#open} promises, not
 * accepted and then answered UNAVAILABLE forever with no error anywhere (found by review; both failed before). No
 * Redis needed: each URI fails before any connection would be made.
 */
@Timeout(60)
class RedisUriTest
{
    /**
     * Lettuce's RedisURI.create reads "redis://127.0.0.1:6379x" as host "127.0.0.1:6379x", port 6379 (a port that is
     * not a number is kept as part of the host): the client opened fine and every lease was UNAVAILABLE.
     */
    @Test
    void aPortThatIsNotANumberIsRefusedAtOpen()
    {
        assertThrows(IllegalArgumentException.class, () -> RedisLeases.open("redis://127.0.0.1:6379x").close(),
            "a URI whose port is not a number");
    }

    /**
     * The configuration accepts redis-socket://, but the engine ships no epoll/kqueue transport, and Lettuce then
     * threw IllegalStateException inside RedisConnector's background task, where nothing caught it: open succeeded,
     * no connection attempt was ever made again, and every lease was UNAVAILABLE forever.
     */
    @Test
    void aUnixSocketUriIsRefusedAtOpenWhenNoTransportCanConnectIt()
    {
        assumeFalse(Transports.NativeTransports.isDomainSocketSupported(), "a native transport is on the class path");
        final IllegalStateException error = assertThrows(IllegalStateException.class,
            () -> RedisLeases.open("redis-socket:///tmp/floodgate-review.sock").close(),
            "a unix socket URI that no transport on the class path can connect");
        assertTrue(error.getMessage().contains("netty-transport-native-epoll"), error.getMessage());
    }
}
