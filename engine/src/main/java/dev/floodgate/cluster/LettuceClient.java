package dev.floodgate.cluster;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.ConnectionFuture;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import io.lettuce.core.resource.Delay;
import io.lettuce.core.resource.NettyCustomizer;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.util.HashedWheelTimer;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The Lettuce client a {@link RedisConnector} connects with, and its own threads and timer, set up so that no caller
 * ever waits on Redis: commands time out after the command timeout, are rejected at once while the connection is
 * down (and those in flight when it drops are failed, not replayed), and at most {@link #REQUEST_QUEUE} wait for a
 * reply. Lettuce reconnects a connection it once had; making the first one is the connector's. Thread-safe.
 */
final class LettuceClient
{
    /** Commands waiting for a reply, at most: beyond, a call is rejected at once instead of queueing. */
    static final int REQUEST_QUEUE = 256;
    /**
     * The bound of a connection attempt and its handshake (HELLO). Six child JVMs beside four CPU hogs on two cores
     * never finished a handshake within 1 s: Redis answered HELLO, the clients timed out before reading it, and no
     * lease was ever sent. An attempt runs in the background, never on a check's thread, so a long bound costs
     * only a slower retry against a Redis that accepts connections and never answers.
     */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** The bound of {@link #shutdown}'s waits, together: past Lettuce's own 2 s for its executors, with a margin. */
    private static final long SHUTDOWN_WAIT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final HashedWheelTimer timer;
    private final ClientResources resources;
    private final RedisClient client;
    private final RedisURI uri;

    /**
     * @param uri            a redis:// or rediss:// URI.
     * @param commandTimeout how long a command may wait for its reply.
     * @param retry          the longest pause between two reconnects.
     * @param first          the handler put first in every connection's pipeline.
     * @throws IllegalArgumentException if the URI is malformed (before any thread is started).
     */
    LettuceClient(final String uri, final Duration commandTimeout, final Duration retry, final ChannelHandler first)
    {
        this.uri = RedisUris.parse(uri);
        // the URI's timeout bounds the connection's handshake too: at the command's 50 ms, a loaded host (six JVMs
        // on two cores) never finished one and never connected; commands keep their own bound (TimeoutOptions)
        this.uri.setTimeout(CONNECT_TIMEOUT.compareTo(commandTimeout) > 0 ? CONNECT_TIMEOUT : commandTimeout);
        // Lettuce's own timer ticks every 100 ms, so a 50 ms timeout would fire after 100 to 200 ms
        this.timer = new HashedWheelTimer(runnable -> daemon(runnable, "floodgate-redis-timer"), 10,
            TimeUnit.MILLISECONDS);
        // two of each is Lettuce's least (it raises a 1 and logs it): leases are rare, a node needs no more
        this.resources = DefaultClientResources.builder()
            .ioThreadPoolSize(2)
            .computationThreadPoolSize(2)
            .timer(timer)
            .reconnectDelay(Delay.exponential(Duration.ofMillis(10), retry, 2, TimeUnit.MILLISECONDS))
            .nettyCustomizer(new NettyCustomizer()
            {
                @Override
                public void afterChannelInitialized(final Channel channel)
                {
                    // first: it sees bytes as they arrive, before any decoding, also for a late reply
                    channel.pipeline().addFirst(first);
                }
            })
            .build();
        this.client = RedisClient.create(resources);
        client.setOptions(ClientOptions.builder()
            .autoReconnect(true)
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .requestQueueSize(REQUEST_QUEUE)
            .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
            .socketOptions(SocketOptions.builder().connectTimeout(CONNECT_TIMEOUT).keepAlive(true).tcpNoDelay(true)
                .build())
            .build());
    }

    /** @param listener told of every connection's state, reconnects included. */
    void addListener(final RedisConnectionStateListener listener)
    {
        client.addListener(listener);
    }

    /** @return an attempt at a new connection; may throw before one is under way. */
    ConnectionFuture<StatefulRedisConnection<byte[], byte[]>> connectAsync()
    {
        return client.connectAsync(ByteArrayCodec.INSTANCE, uri);
    }

    /**
     * @param task runs on Lettuce's executor, never the caller's thread.
     * @throws RuntimeException when the executor is shutting down: closed, or about to be.
     */
    void execute(final Runnable task)
    {
        resources.eventExecutorGroup().execute(task);
    }

    /**
     * Stops Lettuce's threads and the timer, and waits for them, a few seconds at most (Lettuce's own 2 s bound, and
     * {@link #SHUTDOWN_WAIT_NANOS} for a task that does not end). Interrupts end none of it: the caller's status is set
     * aside, and one arriving meanwhile kept, and given back. Lettuce's wait threw on either, out of a
     * {@code Floodgate.close} that then left its slot claimed and these threads running (found by review,
     * {@code InterruptedGiveBackCloseTest}, {@code InterruptedCloseTest}).
     */
    void shutdown()
    {
        boolean interrupted = Thread.interrupted(); // HashedWheelTimer.stop would spin on its joins while it is set
        try
        {
            final long deadline = System.nanoTime() + SHUTDOWN_WAIT_NANOS;
            interrupted |= awaitThroughInterrupts("the Redis client", client.shutdownAsync(0, 2, TimeUnit.SECONDS),
                deadline);
            interrupted |= awaitThroughInterrupts("Lettuce's threads", resources.shutdown(0, 2, TimeUnit.SECONDS),
                deadline);
            timer.stop(); // joins its thread through interrupts, and gives them back
            interrupted |= Thread.interrupted();
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void warnNotShutDown(final String what)
    {
        System.getLogger("dev.floodgate").log(System.Logger.Level.WARNING, "{0}: not shut down within {1} s; closing "
            + "without waiting for it", what, TimeUnit.NANOSECONDS.toSeconds(SHUTDOWN_WAIT_NANOS));
    }

    /**
     * Waits for {@code shutdown} until {@code deadline} (System.nanoTime) through interrupts; past it, logs what is
     * left running and returns (a close must end).
     *
     * @return true if an interrupt arrived meanwhile: the caller gives it back.
     */
    static boolean awaitThroughInterrupts(final String what, final Future<?> shutdown, final long deadline)
    {
        boolean interrupted = false;
        while (true)
        {
            try
            {
                shutdown.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                return interrupted;
            }
            catch (final InterruptedException ex)
            {
                interrupted = true;
                if (deadline - System.nanoTime() <= 0 && !shutdown.isDone())
                {
                    // the timed wait tests the interrupt before the time: one at every wait would hold it past here
                    warnNotShutDown(what);
                    return true;
                }
            }
            catch (final TimeoutException ex)
            {
                warnNotShutDown(what);
                return interrupted;
            }
            catch (final ExecutionException ex)
            {
                // Lettuce's own shutdown() threw it, out of a close that then skipped the rest of the shutdown and the
                // detach: said, and the close goes on
                System.getLogger("dev.floodgate").log(System.Logger.Level.WARNING, what + ": its shutdown failed; "
                    + "closing without it", ex.getCause());
                return interrupted;
            }
        }
    }

    private static Thread daemon(final Runnable runnable, final String name)
    {
        final Thread thread = new Thread(runnable, name);
        thread.setDaemon(true);
        return thread;
    }
}
