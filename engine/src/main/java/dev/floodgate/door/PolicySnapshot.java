package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.store.PolicyRegion;

/**
 * This process's immutable copy of the file's policy at one generation. A check compares the file's policy
 * generation (one acquire load of a read-mostly line) with {@link #generation()} and rebuilds the snapshot
 * only when they differ, so a warm check reads the policy without allocating or locking.
 */
public final class PolicySnapshot
{
    private final long generation;
    private final ActionRule[] rules;
    private final PolicyRegion.Block[] blocks;

    PolicySnapshot(final long generation, final PolicyRegion.Block[] blocks, final int shards)
    {
        this.generation = generation;
        this.blocks = blocks.clone();
        this.rules = new ActionRule[blocks.length];
        for (int a = 0; a < blocks.length; a++)
        {
            rules[a] = new ActionRule(blocks[a], shards);
        }
    }

    /** @return the policy generation this snapshot was read at. */
    public long generation()
    {
        return generation;
    }

    /** @param action an action. @return its stored block. */
    public PolicyRegion.Block block(final Action action)
    {
        return blocks[action.ordinal()];
    }

    ActionRule rule(final Action action)
    {
        return rules[action.ordinal()];
    }

    /**
     * @param action the action.
     * @param nowMs  monotonic ms.
     * @return the window number in force at {@code nowMs} (the janitor's idleness test).
     */
    public long windowNumber(final Action action, final long nowMs)
    {
        return rules[action.ordinal()].regimeAt(nowMs).number(nowMs);
    }
}
