package dev.floodgate.door;

import dev.floodgate.store.CounterRegion;

import java.util.concurrent.atomic.LongAdder;

/**
 * This process's check counters: probe-striped {@link LongAdder} cells on the heap, so concurrent checks
 * never serialise on one line, flushed as running totals into this process's own block of the file
 * ({@link CounterRegion}) by the clock thread every heartbeat and once more on close, on top of what the block held
 * when this process claimed it. Counts of the last heartbeat before a process is killed are lost; nothing is ever
 * counted twice.
 */
public final class CheckCounters
{
    private final LongAdder[] cells;
    private final int actions;
    /** What the block held when this process claimed its slot: its predecessors' totals. */
    private final long[] base;
    private boolean sealed; // guarded by this

    /** @param actions the number of actions. */
    public CheckCounters(final int actions)
    {
        this.actions = actions;
        this.cells = new LongAdder[actions * CounterRegion.COUNTERS];
        this.base = new long[cells.length];
        for (int i = 0; i < cells.length; i++)
        {
            cells[i] = new LongAdder();
        }
    }

    void increment(final int action, final int counter)
    {
        cells[action * CounterRegion.COUNTERS + counter].increment();
    }

    /**
     * @param action  an action's ordinal.
     * @param counter a {@link CounterRegion} counter.
     * @return this process's running total (exact once its checks have returned; moving while they run).
     */
    public long sum(final int action, final int counter)
    {
        return cells[action * CounterRegion.COUNTERS + counter].sum();
    }

    /**
     * Takes what this process's block holds as the totals to count on from: call once the slot is claimed, before
     * the first flush.
     *
     * @param region the file's counters.
     * @param slot   this process's registry slot.
     */
    public synchronized void inherit(final CounterRegion region, final int slot)
    {
        for (int a = 0; a < actions; a++)
        {
            for (int c = 0; c < CounterRegion.COUNTERS; c++)
            {
                base[a * CounterRegion.COUNTERS + c] = region.ownVolatile(slot, a, c);
            }
        }
    }

    /**
     * Stores the running totals into this process's block. Synchronised: the clock thread and a caller of
     * {@code checks()} flush concurrently, and a slower flush must not store an older, smaller total last.
     *
     * @param region the file's counters.
     * @param slot   this process's registry slot.
     */
    public synchronized void flush(final CounterRegion region, final int slot)
    {
        if (sealed)
        {
            // after close's last flush: the slot may be another process's, which counts on from the block; a scrape
            // that passed the closed test before close would count every check twice (found by review)
            return;
        }
        for (int a = 0; a < actions; a++)
        {
            for (int c = 0; c < CounterRegion.COUNTERS; c++)
            {
                final int i = a * CounterRegion.COUNTERS + c;
                region.putOwnRelease(slot, a, c, base[i] + cells[i].sum());
            }
        }
    }

    /**
     * Flushes the totals a last time and stops every later flush: call on close, before the slot is left.
     *
     * @param region the file's counters.
     * @param slot   this process's registry slot.
     */
    public synchronized void seal(final CounterRegion region, final int slot)
    {
        flush(region, slot);
        sealed = true;
    }
}
