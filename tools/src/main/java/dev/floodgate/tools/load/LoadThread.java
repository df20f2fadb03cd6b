package dev.floodgate.tools.load;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import org.HdrHistogram.Histogram;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/** One thread of one lane: checks keys round robin from its own starting key until the end time. */
final class LoadThread extends Thread
{
    /** How often a thread publishes its progress, in checks. */
    private static final int PUBLISH_EVERY = 1024;

    private final Floodgate gate;
    final Lane lane;
    private final int slot;
    private final AtomicLongArray progress;
    private final long start;
    private final long end;
    final long[] admitted;
    final long[] refused;
    final Histogram histogram;
    private final int firstKey;
    /** The lane's identifiers, one array shared by the lane's threads. */
    private final String[] keys;
    /** Read by the worker once the thread ended. */
    long checks;
    long elapsedNanos;
    Throwable failure;

    LoadThread(final Floodgate gate, final Lane lane, final String[] keys, final int t, final int slot,
        final AtomicLongArray progress, final long start, final long end, final boolean latency, final int worker)
    {
        super("load-" + lane.action().configPrefix() + "-" + t);
        this.gate = gate;
        this.lane = lane;
        this.keys = keys;
        this.slot = slot;
        this.progress = progress;
        this.start = start;
        this.end = end;
        this.admitted = new long[lane.keyCount()];
        this.refused = new long[lane.keyCount()];
        this.histogram = latency ? new Histogram(60_000_000_000L, 3) : null;
        // Threads start spread over the keys by the golden ratio, whatever their number: threads in step
        // (say, two JVMs whose first keys were 2 apart) would each meet every new key while another
        // thread inserts it, which measures that coincidence rather than the engine.
        final double spread = ((worker * 64L + t) * 0.6180339887498949) % 1.0;
        this.firstKey = (int)(spread * lane.keyCount());
    }

    @Override
    public void run()
    {
        try
        {
            final boolean bucket = lane.door() == Lane.Door.BUCKET;
            final Action action = lane.action();
            final long pauseNanos = lane.pauseMicros() * 1_000L;
            while (System.nanoTime() - start < 0)
            {
                LockSupport.parkNanos(20_000L); // released by the clock, the same instant in every worker
            }
            final long began = System.nanoTime();
            int k = firstKey;
            long n = 0;
            long admittedTotal = 0;
            long now = began;
            while (now - end < 0)
            {
                final long result = bucket ? gate.checkLimit(keys[k], action) :
                    gate.checkLimitInCaller(keys[k], action);
                final long after = System.nanoTime();
                if (histogram != null)
                {
                    histogram.recordValue(after - now);
                }
                if (result == Floodgate.ADMITTED)
                {
                    admitted[k]++;
                    admittedTotal++;
                }
                else
                {
                    refused[k]++;
                }
                if (++k == keys.length)
                {
                    k = 0;
                }
                if ((++n & (PUBLISH_EVERY - 1)) == 0 || pauseNanos > 0)
                {
                    progress.lazySet(2 * slot, n);
                    progress.lazySet(2 * slot + 1, admittedTotal);
                }
                if (pauseNanos > 0)
                {
                    LockSupport.parkNanos(pauseNanos); // models login attempts at a human pace
                }
                now = pauseNanos > 0 ? System.nanoTime() : after;
            }
            progress.lazySet(2 * slot, n);
            progress.lazySet(2 * slot + 1, admittedTotal);
            checks = n;
            elapsedNanos = now - began;
        }
        catch (final Throwable ex)
        {
            failure = ex;
        }
    }
}
