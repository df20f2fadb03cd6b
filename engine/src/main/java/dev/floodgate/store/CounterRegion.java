package dev.floodgate.store;

import dev.floodgate.Action;
import dev.floodgate.Stats;
import org.agrona.concurrent.AtomicBuffer;

import java.util.EnumMap;
import java.util.Map;

/**
 * Per-action check counters in the file's record, striped per process so that no check ever writes a line
 * another process writes. Each attached process owns the block of its registry slot and stores its running
 * totals there (release stores, from its clock thread), counted on from what the block held when it claimed the
 * slot ({@link #ownVolatile}): the totals of every process that held the slot before it stay in the block, which
 * nothing ever moves, so a process killed anywhere (in its close too) leaves each count in exactly one word. (Closing
 * and freeing a dead slot once folded the block into the retired block, an add then a zeroing: a process killed
 * between the two left its counts in both, and the slot's next owner folded them again, for good: found by review.)
 * Readers sum the retired block (what engines before that change folded) and every process block with volatile
 * loads and no lock.
 *
 * <pre>
 *  Block (one per process slot, plus the retired block), at ordinal x 32:
 *   0  admitted (64)   checks that admitted, shadow admissions included
 *   8  refused (64)    checks that refused, impossible charges included
 *  16  shadowed (64)   checks a shadow-mode action admitted but would have refused
 *  24  never (64)      charges above the whole limit (refused, or admitted in shadow mode)
 * </pre>
 */
public final class CounterRegion
{
    public static final int ADMITTED = 0;
    public static final int REFUSED = 1;
    public static final int SHADOWED = 2;
    public static final int NEVER = 3;
    public static final int COUNTERS = 4;
    private static final int ACTION_STRIDE = COUNTERS * 8;

    private final AtomicBuffer buffer;

    /** @param header the file's record. */
    public CounterRegion(final FileHeader header)
    {
        this.buffer = header.buffer();
    }

    /** @param slot a process slot, or -1 for the retired block. @return the block's offset. */
    public static int blockOffset(final int slot)
    {
        return slot < 0 ? FileHeader.RETIRED_COUNTERS_OFFSET :
            FileHeader.PROCESS_COUNTERS_OFFSET + slot * FileHeader.COUNTERS_STRIDE;
    }

    /** @return the offset of one counter in a block. */
    static int counterOffset(final int slot, final int action, final int counter)
    {
        return blockOffset(slot) + action * ACTION_STRIDE + counter * 8;
    }

    /** Stores a running total into this process's own block; only its owner writes it. */
    public void putOwnRelease(final int slot, final int action, final int counter, final long total)
    {
        buffer.putLongRelease(counterOffset(slot, action, counter), total);
    }

    /**
     * @return what a process block holds: the totals the slot's next owner counts on from. Read by the slot's owner.
     */
    public long ownVolatile(final int slot, final int action, final int counter)
    {
        return buffer.getLongVolatile(counterOffset(slot, action, counter));
    }

    /**
     * @param action  an action ordinal.
     * @param counter one of {@link #ADMITTED}, {@link #REFUSED}, {@link #SHADOWED}, {@link #NEVER}.
     * @return the node-wide total: retired plus every process block, volatile loads, no lock. Not a snapshot across
     * processes.
     */
    public long totalVolatile(final int action, final int counter)
    {
        long sum = buffer.getLongVolatile(counterOffset(-1, action, counter));
        for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
        {
            sum += buffer.getLongVolatile(counterOffset(slot, action, counter));
        }
        return sum;
    }

    /** @return per action, the node-wide check counters, read with volatile loads and no lock. */
    public Map<Action, Stats.Checks> checksVolatile()
    {
        final Map<Action, Stats.Checks> checks = new EnumMap<>(Action.class);
        for (final Action action : Action.values())
        {
            final int a = action.ordinal();
            checks.put(action, new Stats.Checks(totalVolatile(a, ADMITTED), totalVolatile(a, REFUSED),
                totalVolatile(a, SHADOWED), totalVolatile(a, NEVER)));
        }
        return Map.copyOf(checks);
    }
}
