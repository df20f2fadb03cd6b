package dev.floodgate.cluster;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;

import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

/**
 * One Lettuce connection to the lease server, made by a {@link LettuceClient} (whose settings keep every caller
 * from waiting on Redis). Lettuce reconnects a connection it once had; the first one is tried in the background,
 * again at most every {@link #RETRY}, until it succeeds. Each time a connection comes up the owner's
 * {@code onConnect} is given its commands: the first connection is handed to callers only after {@code onConnect}
 * sent what it sends, so Redis runs that first on it; after a reconnect it is sent as soon as Lettuce reports the
 * connection up, which callers' commands may precede (the owner must not depend on it then).
 *
 * <p>A connection Lettuce believes up may be silently dead (no RST, no FIN: a dropped route, an expired NAT entry, a
 * moved address), and Lettuce would keep it until the kernel gives up, minutes to hours. The owner reports each
 * command that failed ({@link #failed}); when {@link SilenceWatchdog}'s rule says the connection is dead, it is
 * closed and a new one connected by the same background path as the first (so its {@code onConnect} commands go
 * first), while calls are refused at once instead of each waiting out its timeout. With the engine's 1 s bound and
 * calls coming, leasing resumes at most about 5 s after the silence began (a timeout, {@link SilenceWatchdog#SILENCE},
 * and the next call's timeout), plus the new connection's handshake. Thread-safe.
 */
final class RedisConnector implements AutoCloseable
{
    /** The longest pause between two attempts to (re)connect: a restarted Redis is used again within about this. */
    static final Duration RETRY = Duration.ofSeconds(1);
    private static final System.Logger LOG = System.getLogger("dev.floodgate");

    private final LettuceClient client;
    private final AtomicReference<StatefulRedisConnection<byte[], byte[]>> connection = new AtomicReference<>();
    private final AtomicBoolean connecting = new AtomicBoolean();
    private final Consumer<RedisAsyncCommands<byte[], byte[]>> onConnect;
    private final SilenceWatchdog watchdog = new SilenceWatchdog();
    private volatile long nextAttemptNanos;
    private volatile boolean closed;
    /** Whether this failing streak of connection attempts was logged. */
    private volatile boolean failureSaid;
    /** Whether the loss of the published connection was logged, and its reconnect not yet. */
    private volatile boolean lostSaid;
    /** The URI as logged: without its password. */
    private final String shown;

    /**
     * @param uri            a redis:// or rediss:// URI.
     * @param commandTimeout how long a command may wait for its reply.
     * @param onConnect      sends what every new connection needs first (without waiting for it); runs on
     *                       Lettuce's threads, must not block, and may find the connection gone again.
     * @throws IllegalArgumentException if the URI is malformed.
     */
    RedisConnector(final String uri, final Duration commandTimeout,
        final Consumer<RedisAsyncCommands<byte[], byte[]>> onConnect)
    {
        this.onConnect = onConnect;
        this.shown = RedisUriText.redacted(uri);
        this.client = new LettuceClient(uri, commandTimeout, RETRY, watchdog.noter());
        client.addListener(new RedisConnectionStateListener()
        {
            @Override
            public void onRedisConnected(final RedisChannelHandler<?, ?> handler, final SocketAddress address)
            {
                final StatefulRedisConnection<byte[], byte[]> open = connection.get();
                if (open != null && handler == open)
                {
                    // a reconnect (the first connection is not published yet); off Lettuce's listener callback,
                    // on its executor: best effort, callers' commands may reach Redis first
                    watchdog.reset();
                    execute(() -> sendOnConnect(open));
                    if (lostSaid)
                    {
                        lostSaid = false;
                        LOG.log(System.Logger.Level.INFO, "reconnected to Redis at " + shown);
                    }
                }
            }

            @Override
            public void onRedisDisconnected(final RedisChannelHandler<?, ?> handler)
            {
                // the published connection dropped (not one replaced or closed by us): Lettuce reconnects by
                // itself and logs through SLF4J only, which a broker may not route anywhere
                if (!closed && !lostSaid && handler == connection.get())
                {
                    lostSaid = true;
                    LOG.log(System.Logger.Level.WARNING, "lost the connection to Redis at " + shown + " (no new " +
                        "cluster leases until it reconnects: checks spend what the node's leases hold, then answer " +
                        "their action's fallback)");
                }
            }
        });
        connectInBackground();
    }

    /**
     * @return the commands of the open connection, or null while there has never been one (an attempt is then
     * started in the background). Never blocks.
     */
    RedisAsyncCommands<byte[], byte[]> commands()
    {
        final StatefulRedisConnection<byte[], byte[]> open = connection.get();
        if (open != null)
        {
            return open.async();
        }
        connectInBackground();
        return null;
    }

    /** @return whether the connection is up now. */
    boolean isConnected()
    {
        final StatefulRedisConnection<byte[], byte[]> open = connection.get();
        return open != null && open.isOpen();
    }

    /**
     * Reports a command that failed, for the watchdog; a command that was answered needs no report (the watchdog
     * sees every read). Never blocks, never throws.
     *
     * @param commands what the command was sent on, as {@link #commands()} returned it.
     * @param error    how it failed; null (answered) is ignored.
     */
    void failed(final RedisAsyncCommands<byte[], byte[]> commands, final Throwable error)
    {
        final StatefulRedisConnection<byte[], byte[]> open = connection.get();
        // a command of a connection replaced already, or one Lettuce knows is down and reconnects by itself
        if (error == null || open == null || commands.getStatefulConnection() != open || !open.isOpen())
        {
            return;
        }
        if (watchdog.ended(timedOut(error), System.nanoTime()) && connection.compareAndSet(open, null))
        {
            // closing fails its commands in flight, every one a caller has been or is about to be told unavailable
            open.closeAsync();
            nextAttemptNanos = System.nanoTime();
            connectInBackground();
        }
    }

    /**
     * @param max how long to wait at most.
     * @return whether the connection is up, waited for at most {@code max} (for a node's start, not a check).
     */
    boolean awaitConnected(final Duration max) throws InterruptedException
    {
        final long deadline = System.nanoTime() + max.toNanos();
        while (!isConnected())
        {
            if (System.nanoTime() - deadline >= 0)
            {
                return false;
            }
            connectInBackground();
            Thread.sleep(10);
        }
        return true;
    }

    private void connectInBackground()
    {
        // a published connection reconnects by itself: a second one would replace it, and it would leak
        if (closed || connection.get() != null || System.nanoTime() - nextAttemptNanos < 0
            || !connecting.compareAndSet(false, true))
        {
            return;
        }
        nextAttemptNanos = System.nanoTime() + RETRY.toNanos();
        try
        {
            // on Lettuce's own thread: a check thread never runs connection code
            client.execute(this::connectAsync);
        }
        catch (final RuntimeException ex)
        {
            // the executor is shutting down: closed, or about to be
            connecting.set(false);
        }
    }

    private void connectAsync()
    {
        try
        {
            client.connectAsync().whenComplete((opened, error) ->
            {
                if (opened != null)
                {
                    watchdog.reset();
                    sendOnConnect(opened); // before any caller's command: Redis runs it first
                    // never replaces one published meanwhile: that one would be left open, reconnecting forever
                    if (!connection.compareAndSet(null, opened) || closed)
                    {
                        opened.closeAsync();
                    }
                    failureSaid = false;
                }
                else
                {
                    sayFailure(error);
                }
                connecting.set(false);
            });
        }
        catch (final RuntimeException ex)
        {
            // thrown before any stage existed: with no completion to clear the flag, no attempt would follow
            sayFailure(ex);
            connecting.set(false);
        }
    }

    /** Logs the first failed connection of a streak: leases answer unavailable meanwhile, and stats say down. */
    private void sayFailure(final Throwable error)
    {
        if (!failureSaid && !closed)
        {
            failureSaid = true;
            LOG.log(System.Logger.Level.WARNING, "cannot connect to Redis at " + shown +
                " (cluster leases unavailable until it can; retrying every " + RETRY.toMillis() + " ms): " +
                reason(error));
        }
    }

    /** Causes {@link #reason} follows at most. */
    private static final int MAX_CAUSES = 16;

    /**
     * @return the failure and its innermost cause's message: Lettuce reports a server's refusal (a database out of
     * range, a password it does not know) as "Unable to connect to host:port", Redis's answer only in the cause,
     * and an operator told only that looks at the network. Redis's error replies never repeat a password.
     */
    static String reason(final Throwable error)
    {
        Throwable root = error;
        // bounded: a cause chain may loop (A -> B -> A), which Throwable itself does not prevent
        for (int depth = 0; depth < MAX_CAUSES && root.getCause() != null && root.getCause() != root; depth++)
        {
            root = root.getCause();
        }
        return root == error || root.getMessage() == null ? String.valueOf(error) : error + ": " + root.getMessage();
    }

    private void sendOnConnect(final StatefulRedisConnection<byte[], byte[]> open)
    {
        try
        {
            onConnect.accept(open.async());
        }
        catch (final RuntimeException ex)
        {
            // dropped again at once, or closed: the callers' commands meet the same state and answer for it
        }
    }

    private void execute(final Runnable task)
    {
        try
        {
            client.execute(task);
        }
        catch (final RuntimeException ex)
        {
            // the executor is shutting down: closed, or about to be
        }
    }

    /** Closes the connection and stops Lettuce's threads, waiting at most a few seconds. */
    @Override
    public void close()
    {
        closed = true;
        final StatefulRedisConnection<byte[], byte[]> open = connection.getAndSet(null);
        if (open != null)
        {
            open.close();
        }
        client.shutdown();
    }

    private static boolean timedOut(final Throwable error)
    {
        for (Throwable cause = error; cause != null; cause = cause.getCause())
        {
            if (cause instanceof RedisCommandTimeoutException)
            {
                return true;
            }
        }
        return false;
    }
}
