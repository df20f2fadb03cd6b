package dev.floodgate.door;

import dev.floodgate.Ticker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * A monotonic millisecond clock for the doors, read with two loads instead of a {@code clock_gettime}: a daemon
 * thread publishes the ticker's time about every {@link #TICK_NANOS} while checks read it, and sleeps while
 * none do.
 *
 * <p>What is guaranteed, under any number of reading threads:
 * <ul>
 * <li>Readings never go backwards: a reading is never earlier than one that happened before it, in this thread or
 * another. Every publish, the thread's and a waking reader's, raises the published time by compare-and-set and
 * never lowers it, so a reader's own ticker reading cannot be overwritten by the thread's older one.</li>
 * <li>While the thread ticks, a reading trails the ticker by at most one tick plus however long the thread is
 * descheduled (or takes to wake).</li>
 * <li>After {@link #IDLE_TICKS} ticks with no read the thread stops ticking and parks until its periodic task is
 * due. The first read that finds it asleep reads the ticker itself (it does not trail at all), publishes that
 * time and wakes the thread. So a check never reads a time made stale by the clock's sleep.</li>
 * <li>The periodic task (the process heartbeat) runs every {@code periodicNanos}, asleep or awake: other
 * processes judge this one's liveness by it.</li>
 * </ul>
 * What is not: precision below a tick. The window door only needs to know which window it is in; a late reading
 * makes a boundary late by that much, never a count inexact.
 *
 * <p>Cost of a read: two loads of fields written about once a tick (the state, then the time) and, while the thread
 * ticks, one compare-and-set per tick by the first reader after it (the "read since the tick" mark the thread
 * clears): no write on the other reads, so checking threads do not bounce the line between them. The first read after
 * a sleep pays a ticker read, two compare-and-sets and an unpark.
 *
 * <p>With an injected (non-system) ticker nothing is published and every read goes to the ticker, so tests stay
 * deterministic; the thread then only runs the periodic task. The package-private constructor publishes from any
 * ticker, for the tests of the sleep itself.
 */
public final class CoarseClock implements AutoCloseable
{
    /**
     * Publishing interval. Each tick wakes a thread in every JVM; at 200 us the two clock threads of two JVMs
     * took 15.7% of a 2-core host (perf) and two JVMs warmed up to 2x slower than at 1 ms (NOTES, the cold path).
     */
    public static final long TICK_NANOS = 1_000_000L;

    /**
     * Ticks with no read before the thread sleeps: about a second. The wake-up (an unpark, a system call of a few
     * microseconds) lands on a check, so it should stay rare: at most one check a second per JVM pays it, and a
     * steadily checked clock never sleeps. An idle JVM saves as much with this as with a shorter wait: asleep, the
     * thread wakes only for the heartbeat (10 a second, not 1,000).
     */
    static final long IDLE_TICKS = 1_000;

    /** Ticking, and no read since the last tick. */
    private static final int UNREAD = 0;
    /** Ticking, and read since the last tick (the only state a warm read leaves as it found it). */
    private static final int READ = 1;
    /** Not ticking: a reader reads the ticker and wakes the thread. */
    private static final int ASLEEP = 2;
    /** Injected ticker: nothing published, every read goes to the ticker. */
    private static final int UNPUBLISHED = 3;

    private static final VarHandle STATE;
    private static final VarHandle NOW_NANOS;

    static
    {
        try
        {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            STATE = lookup.findVarHandle(CoarseClock.class, "state", int.class);
            NOW_NANOS = lookup.findVarHandle(CoarseClock.class, "nowNanos", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final Ticker ticker;
    private final long idleTicks;
    private final Runnable onTick;
    private final Thread thread;
    private volatile int state;
    private volatile long nowNanos;
    private volatile boolean running = true;

    /**
     * @param ticker        the source of time; published only when it is {@link Ticker#system()}.
     * @param periodic      run on the clock thread every {@code periodicNanos}.
     * @param periodicNanos interval of {@code periodic}.
     * @param name          the thread's name.
     */
    public CoarseClock(final Ticker ticker, final Runnable periodic, final long periodicNanos, final String name)
    {
        this(ticker, ticker == Ticker.system(), IDLE_TICKS, () -> { }, periodic, periodicNanos, name);
    }

    /**
     * For tests of the publishing and the sleep.
     *
     * @param publish   whether to publish {@code ticker}'s time (whatever ticker it is).
     * @param idleTicks ticks with no read before the thread sleeps.
     * @param onTick    run on the clock thread after each tick's publish and sleep decision.
     */
    CoarseClock(final Ticker ticker, final boolean publish, final long idleTicks, final Runnable onTick,
        final Runnable periodic, final long periodicNanos, final String name)
    {
        this.ticker = ticker;
        this.idleTicks = idleTicks;
        this.onTick = onTick;
        this.state = publish ? UNREAD : UNPUBLISHED;
        this.nowNanos = ticker.nanos();
        this.thread = new Thread(() -> run(periodic, periodicNanos), name);
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * @return monotonic time in nanoseconds: the published time while the thread ticks, the ticker's own when it
     * sleeps (the first read after a sleep) or is injected.
     */
    public long nanos()
    {
        final int state = this.state; // before the time: a state that is not ASLEEP was written after its publish
        final long now = nowNanos;
        return state == READ ? now : rareRead(state, now);
    }

    /** The first read after a tick, any read of an asleep clock, and every read of an injected ticker. */
    private long rareRead(final int state, final long now)
    {
        switch (state)
        {
            case UNREAD:
                // the first read since the tick marks it, so the thread stays awake; a lost race (another reader
                // marked it, or the thread just fell asleep after publishing now) changes nothing
                STATE.compareAndSet(this, UNREAD, READ);
                return now;
            case ASLEEP:
                final long published = publish(ticker.nanos());
                // marked read: the woken thread counts its idle ticks afresh; one of several waking readers unparks it
                if (STATE.compareAndSet(this, ASLEEP, READ))
                {
                    LockSupport.unpark(thread);
                }
                return published;
            default:
                return ticker.nanos();
        }
    }

    /** Raises the published time to {@code nanos} unless it is later already. @return the published time. */
    private long publish(final long nanos)
    {
        long published = nowNanos;
        while (nanos - published > 0)
        {
            final long witness = (long)NOW_NANOS.compareAndExchange(this, published, nanos);
            if (witness == published)
            {
                return nanos;
            }
            published = witness;
        }
        return published;
    }

    /** @return whether the thread has stopped ticking until a read or close wakes it. */
    boolean asleep()
    {
        return state == ASLEEP;
    }

    private void run(final Runnable periodic, final long periodicNanos)
    {
        long nextPeriodic = 0;
        boolean started = false;
        long idle = 0;
        while (running)
        {
            long parkNanos = state == UNPUBLISHED ? periodicNanos : TICK_NANOS;
            // Nothing may end this loop but close: a dead clock thread freezes the window door's clock and stops the
            // heartbeat while the JVM lives. So an Error is caught too, and a log that throws in turn (found by review:
            // a failing handler after a failed beat killed the thread).
            try
            {
                final long now = ticker.nanos();
                final int state = this.state;
                if (state == READ || state == UNREAD)
                {
                    publish(now);
                    if (state == READ)
                    {
                        idle = 0;
                        this.state = UNREAD; // only this thread moves the state out of READ
                    }
                    else if (++idle >= idleTicks)
                    {
                        // fails when a reader marked the tick meanwhile: the next tick finds READ, counts afresh
                        STATE.compareAndSet(this, UNREAD, ASLEEP);
                    }
                    onTick.run();
                }
                if (!started || now - nextPeriodic >= 0)
                {
                    started = true;
                    nextPeriodic = now + periodicNanos;
                    periodic.run();
                }
                if (this.state == ASLEEP)
                {
                    parkNanos = nextPeriodic - now; // a reader's unpark cuts it short
                }
            }
            catch (final Throwable ex)
            {
                try
                {
                    System.getLogger("dev.floodgate").log(System.Logger.Level.ERROR, "periodic task failed", ex);
                }
                catch (final Throwable logFailed)
                {
                    // said nowhere; the next tick runs regardless
                }
            }
            LockSupport.parkNanos(parkNanos);
        }
    }

    /**
     * Stops the thread and waits for it, so the periodic task never runs after this returns: uninterruptibly, and
     * with no bound (the task writes a few words of the mapped file and never blocks). With a bound, or returning on
     * an interrupt, the caller went on to leave its registry slot while the thread still beat into it (found by
     * review: close from an interrupted thread, then a heartbeat into a slot another process may own).
     */
    @Override
    public void close()
    {
        running = false;
        LockSupport.unpark(thread);
        boolean interrupted = false;
        while (thread.isAlive() && thread != Thread.currentThread())
        {
            try
            {
                thread.join();
            }
            catch (final InterruptedException ex)
            {
                interrupted = true;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }
}
