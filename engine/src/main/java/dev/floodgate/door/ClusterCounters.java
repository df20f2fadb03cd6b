package dev.floodgate.door;

import dev.floodgate.store.ClusterCounterRegion;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * This process's counts of what the cluster answered its checks (refusals, fallbacks by kind) and of the tokens its
 * lease commits added to the node's balances, per action, in probe-striped {@link LongAdder} cells so that checks
 * refused in a burst never serialise on one line; and the flush that adds them, with the lease source's totals,
 * into the node's counters of the file ({@link ClusterCounterRegion}) as what changed since the last flush.
 * Thread-safe.
 */
public final class ClusterCounters
{
    /** A check the cluster refused: the node's lease could not cover it and its bucket was drained. */
    public static final int REFUSED = 0;
    /** A check refused for want of a lease (Redis unavailable, fallback {@code refuse}). */
    public static final int FALLBACK_REFUSED = 1;
    /** A check admitted on the node's quota alone for want of a lease (fallback {@code local}). */
    public static final int FALLBACK_LOCAL = 2;
    /**
     * Tokens leased: what the cluster granted that this process's commits added to the node's balance. Each grant
     * is counted once, by the commit that moved its sequence on ({@code LeaseRefill.commitGrant}), whether its
     * answer came applied or replayed to a retry; a grant whose sequence had already moved on (committed by another
     * fetcher, or spent by a give-back) reached no balance and is not counted. Counted from the client's answers
     * until a review found that a grant recovered by a retry (its first answer lost to the bound) was never
     * counted, and one that never reached the balance was.
     */
    public static final int LEASED = 3;
    public static final int KINDS = 4;

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

    void add(final int action, final int kind, final long amount)
    {
        cells[action * KINDS + kind].add(amount);
    }

    /**
     * @param action an action's ordinal.
     * @param kind   {@link #REFUSED}, {@link #FALLBACK_REFUSED}, {@link #FALLBACK_LOCAL} or {@link #LEASED}.
     * @return this process's running total.
     */
    public long sum(final int action, final int kind)
    {
        return cells[action * KINDS + kind].sum();
    }

    /**
     * @param kind {@link #REFUSED}, {@link #FALLBACK_REFUSED}, {@link #FALLBACK_LOCAL} or {@link #LEASED}.
     * @return this process's running total over every action.
     */
    public long total(final int kind)
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
        now[ClusterCounterRegion.TOKENS_LEASED] = total(LEASED);
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
