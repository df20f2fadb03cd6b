package dev.floodgate.cluster;

import io.lettuce.core.RedisURI;
import io.lettuce.core.resource.Transports;

/** Redis URIs as the connector takes them: parsed by Lettuce, refused where Lettuce would misread them. Stateless. */
final class RedisUris
{
    private RedisUris()
    {
    }

    /**
     * Lettuce's parse, refusing what it would misread: a port that is not a number becomes part of the host (every
     * lease then unavailable, silently), a database that is not a number throws a bare NumberFormatException, and a
     * unix socket without epoll or kqueue on the class path throws inside the first connection attempt (found by
     * review).
     */
    static RedisURI parse(final String uri)
    {
        final RedisURI parsed;
        try
        {
            parsed = RedisURI.create(uri);
            if (parsed.getSocket() == null && new java.net.URI(uri).getHost() == null)
            {
                throw new IllegalArgumentException("no host, or a port that is not a number");
            }
        }
        catch (final IllegalArgumentException | java.net.URISyntaxException ex)
        {
            // no cause, and the reason with the URI redacted: both may hold the password
            final String reason = ex instanceof java.net.URISyntaxException syntax ? syntax.getReason() :
                String.valueOf(ex.getMessage()).replace(uri, RedisUriText.redacted(uri));
            throw new IllegalArgumentException("Redis URI '" + RedisUriText.redacted(uri) + "': " + reason +
                "; expected redis://host[:port][/database] (port and database numbers), rediss://... or " +
                "redis-socket://path");
        }
        if (parsed.getSocket() != null && !Transports.NativeTransports.isDomainSocketSupported())
        {
            throw new IllegalStateException("Redis URI '" + RedisUriText.redacted(uri) + "': a unix socket needs Netty's epoll " +
                "(Linux) or kqueue transport on the class path (io.netty:netty-transport-native-epoll), and neither " +
                "is; use redis://host:port, or add the transport");
        }
        return parsed;
    }
}
