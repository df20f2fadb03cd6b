package dev.floodgate.tools.cluster;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.resource.Transports;

import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The CLI's own Lettuce connection to a Redis server, apart from the engine's leasing client (whose counters stay
 * internal): the server's clock and script-call count for the cluster tally, PING and SHUTDOWN for the demo's
 * server. Every command and the handshake are bounded, and a lost connection stays lost (no reconnect), so the
 * CLI never waits on a server that is gone or stalled. One connection at a time; close it when done.
 */
public final class ServerConnection implements AutoCloseable
{
    /**
     * The engine's connect bound: a fresh JVM's first connect loads Netty and Lettuce inside it, which beside a loaded
     * host's other work outlasted 2 s (bench refused a running server as "no Redis answers there"). A server that is
     * not running refuses the connection at once whatever the bound.
     */
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final Pattern SCRIPT_CALLS = Pattern.compile("cmdstat_(evalsha|eval):calls=(\\d+)");

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;

    private ServerConnection(final RedisClient client, final StatefulRedisConnection<String, String> connection)
    {
        this.client = client;
        this.connection = connection;
    }

    /**
     * @param uri a URI Lettuce accepts ({@code redis://}, {@code rediss://}, ...).
     * @return an open connection.
     * @throws RedisException           when the server does not answer within the timeout.
     * @throws IllegalArgumentException when the URI is malformed.
     */
    public static ServerConnection open(final String uri)
    {
        final RedisURI parsed = RedisURI.create(uri);
        parsed.setTimeout(TIMEOUT);
        final RedisClient client = RedisClient.create(parsed);
        client.setOptions(ClientOptions.builder().autoReconnect(false)
            .socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).build())
            .timeoutOptions(TimeoutOptions.enabled(TIMEOUT)).build());
        try
        {
            return new ServerConnection(client, client.connect());
        }
        catch (final RuntimeException ex)
        {
            client.shutdown(Duration.ZERO, TIMEOUT);
            throw ex;
        }
    }

    /**
     * @param uri a URI Lettuce accepts.
     * @return false when it names a unix socket and no native transport (epoll, kqueue) is on the class path, as in
     * the CLI's jar: Lettuce would refuse it inside the first connection, with an {@link IllegalStateException}.
     */
    public static boolean hasTransportFor(final String uri)
    {
        return RedisURI.create(uri).getSocket() == null || Transports.NativeTransports.isDomainSocketSupported();
    }

    /** @param uri a server's URI. @return true when it answers PING. */
    public static boolean answers(final String uri)
    {
        return whyNotAnswering(uri) == null;
    }

    /**
     * @param uri a server's URI.
     * @return null when it answers PING; else why not, in the words of the innermost failure ("Connection refused",
     * "WRONGPASS ...", "ERR DB index is out of range"), which name the host and port but never the password.
     */
    public static String whyNotAnswering(final String uri)
    {
        try (ServerConnection server = open(uri))
        {
            final String reply = server.commands().ping();
            return "PONG".equals(reply) ? null : "PING answered " + reply;
        }
        catch (final RedisException ex)
        {
            Throwable cause = ex;
            while (cause.getCause() != null)
            {
                cause = cause.getCause();
            }
            return String.valueOf(cause.getMessage());
        }
    }

    /** @return the connection's synchronous commands, each bounded by the timeout. */
    public RedisCommands<String, String> commands()
    {
        return connection.sync();
    }

    /** @return the server's clock (TIME) in milliseconds since the epoch. */
    public long timeMs()
    {
        final List<String> time = commands().time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    /** @return EVALSHA plus EVAL calls the server has run since it started, from {@code INFO commandstats}. */
    public long scriptCalls()
    {
        final Matcher m = SCRIPT_CALLS.matcher(commands().info("commandstats"));
        long calls = 0;
        while (m.find())
        {
            calls += Long.parseLong(m.group(2));
        }
        return calls;
    }

    /** Closes the connection and stops the client's threads. */
    @Override
    public void close()
    {
        connection.close();
        client.shutdown(Duration.ZERO, TIMEOUT);
    }
}
