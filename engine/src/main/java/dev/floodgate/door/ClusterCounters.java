package dev.floodgate.door;

import dev.floodgate.store.ClusterCounterRegion;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * This process's counts of what the cluster answered its checks (refusals, fallbacks by kind), per action, in
 * probe-striped {@link LongAdder} cells so that checks refused in a burst never serialise on one line; and the
 * flush that adds them, with the lease source's totals, into the node's counters of the file
 * ({@link ClusterCounterRegion}) as what changed since the last flush. Thread-safe.
 */
public final class ClusterCounters
{
    /** A check the cluster refused: the node's lease could not cover it and its bucket was drained. */
    public static final int REFUSED = 0;
    /** A check refused for want of a lease (Redis unavailable, fallback {@code refuse}). */
    public static final int FALLBACK_REFUSED = 1;
    /** A check admitted on the node's quota alone for want of a lease (fallback {@code local}). */
    public static final int FALLBACK_LOCAL = 2;
    public static final int KINDS = 3;

    private final LongAdder[] cells;
    /** What the file was given so far, per {@link ClusterCounterRegion} counter; guarded by this. */
    private final long[] flushed = new long[ClusterCounterRegion.COUNTERS];

    /** @param actions the number of actions. */
    public ClusterCounters(final int actions)
    {
        cells = new LongAdder[actions * KINDS];
        for (int i = 0; i < cells.length; i++)
        {
            cells[i] = new LongAdder();
        }
    }

    void increment(final int action, final int kind)
    {
        cells[action * KINDS + kind].increment();
    }

    /**
     * @param action an action's ordinal.
     * @param kind   {@link #REFUSED}, {@link #FALLBACK_REFUSED} or {@link #FALLBACK_LOCAL}.
     * @return this process's running total.
     */
    public long sum(final int action, final int kind)
    {
        return cells[action * KINDS + kind].sum();
    }

    private long total(final int kind)
    {
        long sum = 0;
        for (int i = kind; i < cells.length; i += KINDS)
        {
            sum += cells[i].sum();
        }
        return sum;
    }

    /**
     * Adds to the node's counters what this process counted since the last flush. Synchronised: the clock
     * thread and a closing or reading caller flush concurrently, and each delta must be added once.
     *
     * @param region the file's cluster counters.
     * @param totals the totals of this process's lease source, read under this monitor: read before it, a flush
     *               that waited for it added its older totals last, and the node's counters went backwards (found
     *               by review).
     */
    public synchronized void flush(final ClusterCounterRegion region, final Supplier<LeaseSource.Totals> totals)
    {
        final LeaseSource.Totals source = totals.get();
        final long[] now = new long[ClusterCounterRegion.COUNTERS];
        now[ClusterCounterRegion.ROUND_TRIPS] = source.roundTrips();
        now[ClusterCounterRegion.TOKENS_LEASED] = source.tokensLeased();
        now[ClusterCounterRegion.TOKENS_REFUNDED] = source.tokensRefunded();
        now[ClusterCounterRegion.UNAVAILABLE] = source.unavailable();
        now[ClusterCounterRegion.REFUSED] = total(REFUSED);
        now[ClusterCounterRegion.FALLBACKS_REFUSED] = total(FALLBACK_REFUSED);
        now[ClusterCounterRegion.FALLBACKS_LOCAL] = total(FALLBACK_LOCAL);
        for (int c = 0; c < now.length; c++)
        {
            region.add(c, now[c] - flushed[c]);
            flushed[c] = now[c];
        }
    }
}
