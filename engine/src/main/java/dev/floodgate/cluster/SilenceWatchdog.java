package dev.floodgate.cluster;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.time.Duration;

/**
 * Decides when the connection, which Lettuce still believes up, is silently dead: the peer stopped answering and
 * never sent a RST or FIN (a firewall dropping packets, an expired conntrack or NAT entry, a Redis address moved to
 * another host). Lettuce keeps such a connection until the kernel gives up on it, about 15 minutes of
 * retransmissions (2 hours of keep-alive idle when nothing is sent), every command timing out meanwhile, although a
 * new connection to the same address would work. Its one job is the rule; {@link RedisConnector} acts on it.
 *
 * <p>The rule: {@link #TIMEOUTS} commands in a row ended by their timeout and, since the first of them timed out,
 * not one byte came from Redis for {@link #SILENCE}. Bytes read, not commands completed: a command that timed out
 * stays in Lettuce's stack until its reply comes, and that late reply completes nothing, yet it proves Redis alive.
 * So a slow Redis keeps its connection as long as its replies come within the command timeout plus
 * {@code SILENCE} (4 s with the engine's 1 s lease bound): the first command of a streak was sent one timeout before
 * the streak began, and its reply, read within {@code SILENCE}, ends the streak. Had completions been the evidence,
 * a Redis answering in 1.5 s to 1 s calls would be replaced every few seconds, each time failing the commands in
 * flight, whose replies (tokens Redis granted) nobody would then receive, and paying a handshake and a script load
 * on a server already late. A Redis slower than that cannot be told from a dead one within the bound; replacing it
 * fails only the commands in flight, and every command already timed out lost its reply anyway.
 *
 * <p>Why {@link #TIMEOUTS} as well as {@link #SILENCE}: one caller after a long idle, or one stray timeout, is not
 * a pattern; three callers answered unavailable is. The silence is counted from the streak's first timeout, not from
 * the last read, so an idle connection is not presumed dead by its first three timeouts (concurrent calls can time
 * out within one millisecond of each other after hours without a read).
 *
 * <p>Concurrency: {@link #read} runs on a Netty I/O thread for every read and only writes a volatile; a read of
 * any channel of the connector counts (there is one at a time, except while a replacement connects, and a new
 * connection starts its own streak). {@link #ended} and {@link #reset} run on Lettuce's timer and callers' threads,
 * only for calls that failed, and are synchronized: contended at most during an outage. Times are
 * {@link System#nanoTime()} values passed in, so the rule can be driven by a test's clock.
 */
final class SilenceWatchdog
{
    /**
     * Commands in a row that ended by their timeout, at least: with the engine's 1 s bound and one caller, three
     * seconds of leases answered unavailable, and more than one stray timeout of a Redis busy for a moment.
     */
    static final int TIMEOUTS = 3;
    /**
     * How long nothing at all was read since the streak's first timeout, at least: three of the engine's 1 s lease
     * bounds, so a Redis whose replies come within 4 s is never replaced, and longer than the pauses a healthy
     * Redis takes (a fork for a snapshot, a slow script, an AOF fsync on a loaded disk are well under a second).
     */
    static final Duration SILENCE = Duration.ofSeconds(3);

    private final ReadNoter noter = new ReadNoter(this);
    private volatile long lastReadNanos;
    private int timeouts; // guarded by this
    private long streakStartNanos; // guarded by this

    /** @return the handler to add first to every channel's pipeline: it notes each read here and passes it on. */
    ChannelHandler noter()
    {
        return noter;
    }

    /** @param nowNanos when bytes were read from Redis. */
    void read(final long nowNanos)
    {
        lastReadNanos = nowNanos;
    }

    /** Starts afresh, for a new connection. */
    synchronized void reset()
    {
        timeouts = 0;
    }

    /**
     * @param timedOut whether the command ended by its timeout; else it was refused or failed otherwise, which
     *                 neither lengthens nor ends a streak, but may be the event that finds the silence long enough
     *                 (once Lettuce's request queue is full of timed-out commands, calls are refused at once).
     * @param nowNanos when it ended.
     * @return whether the connection is now presumed silently dead; the streak then starts afresh.
     */
    synchronized boolean ended(final boolean timedOut, final long nowNanos)
    {
        final boolean readSinceStart = lastReadNanos - streakStartNanos > 0;
        if (timedOut)
        {
            if (timeouts == 0 || readSinceStart)
            {
                timeouts = 0;
                streakStartNanos = nowNanos;
            }
            timeouts++;
        }
        else if (readSinceStart)
        {
            timeouts = 0;
        }
        if (timeouts >= TIMEOUTS && lastReadNanos - streakStartNanos <= 0
            && nowNanos - streakStartNanos >= SILENCE.toNanos())
        {
            timeouts = 0;
            return true;
        }
        return false;
    }

    /** Notes every read of the channels it is added to; one instance serves them all. */
    @ChannelHandler.Sharable
    private static final class ReadNoter extends ChannelInboundHandlerAdapter
    {
        private final SilenceWatchdog watchdog;

        ReadNoter(final SilenceWatchdog watchdog)
        {
            this.watchdog = watchdog;
        }

        @Override
        public void channelRead(final ChannelHandlerContext ctx, final Object msg)
        {
            watchdog.read(System.nanoTime());
            ctx.fireChannelRead(msg);
        }
    }
}
