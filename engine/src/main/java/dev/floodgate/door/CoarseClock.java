package dev.floodgate.door;

import dev.floodgate.Ticker;

import java.util.concurrent.locks.LockSupport;

/**
 * A monotonic millisecond clock for the sharded window, read with one volatile load instead of a
 * {@code clock_gettime}: a daemon thread publishes the ticker's time about every {@link #TICK_NANOS}.
 *
 * <p>What is guaranteed: readings never go backwards and trail the ticker by at most one tick plus however
 * long the thread is descheduled. What is not: precision below that. The window door only needs to know
 * which window it is in; a late reading makes a boundary late by that much, never a count inexact. With an
 * injected (non-system) ticker there is no thread and every read goes to the ticker, so tests stay
 * deterministic. The same thread runs a periodic task (the process heartbeat) every {@code periodicNanos}.
 */
public final class CoarseClock implements AutoCloseable
{
    /**
     * Publishing interval. Each tick wakes a thread in every JVM; at 200 us the two clock threads of two JVMs
     * took 15.7% of a 2-core host (perf) and two JVMs warmed up to 2x slower than at 1 ms (NOTES, the cold path).
     */
    public static final long TICK_NANOS = 1_000_000L;

    private final Ticker ticker;
    private final boolean published;
    private final Thread thread;
    private volatile long nowNanos;
    private volatile boolean running = true;

    /**
     * @param ticker        the source of time.
     * @param periodic      run on the clock thread every {@code periodicNanos}.
     * @param periodicNanos interval of {@code periodic}.
     * @param name          the thread's name.
     */
    public CoarseClock(final Ticker ticker, final Runnable periodic, final long periodicNanos, final String name)
    {
        this.ticker = ticker;
        this.published = ticker == Ticker.system();
        this.nowNanos = ticker.nanos();
        this.thread = new Thread(() -> run(periodic, periodicNanos), name);
        thread.setDaemon(true);
        thread.start();
    }

    private void run(final Runnable periodic, final long periodicNanos)
    {
        long nextPeriodic = 0;
        boolean started = false;
        while (running)
        {
            // Nothing may end this loop but close: a dead clock thread freezes the window door's clock and stops the
            // heartbeat while the JVM lives. So an Error is caught too, and a log that throws in turn (found by review:
            // a failing handler after a failed beat killed the thread).
            try
            {
                final long now = ticker.nanos();
                nowNanos = now;
                if (!started || now - nextPeriodic >= 0)
                {
                    started = true;
                    nextPeriodic = now + periodicNanos;
                    periodic.run();
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
            LockSupport.parkNanos(published ? TICK_NANOS : periodicNanos);
        }
    }

    /** @return the published monotonic time in nanoseconds (the ticker's own time when it is injected). */
    public long nanos()
    {
        return published ? nowNanos : ticker.nanos();
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
