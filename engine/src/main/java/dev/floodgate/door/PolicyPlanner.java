package dev.floodgate.door;

import dev.floodgate.store.PolicyRegion;

/**
 * Computes the blocks a publish writes: what changes for each action, and from when.
 *
 * <p>The bucket changes at once: the block's version becomes the new generation, and the first check of
 * each bucket that sees it converts the bucket's debt to the new units (see {@link BucketDoor}).
 *
 * <p>The window door changes at a window boundary. A block holds the current regime C (from its epoch E0 on)
 * and the previous regime P (before E0). With the publisher's clock at {@code now}, a change of limit or
 * window, for any sequence of publishes:
 * <ul>
 * <li>{@code now < E0} and no check has begun counting in C (C still pending): C is replaced by the new regime from
 * the same E0, P stays. The window in force is P's until E0 whatever is published meanwhile, so two publishes
 * inside one window, or an off/on flip, never give that window fresh quota or drop the regime counting it;</li>
 * <li>otherwise C becomes P and the new regime starts at the end of C's window containing {@code now} (E0's
 * window when {@code now} is before it), or of the last window of C a check announced when that is later; or at
 * {@code now} when C is off (nothing was counted while off).</li>
 * </ul>
 * How far the checks went cannot come from the publisher's clock: a check whose clock reads a tick ahead of it
 * (each JVM's coarse clock ticks on its own), or any check while the publisher is descheduled between its clock
 * read and its flip, may already count in C's first window, or in the window after the publisher's, and a new
 * regime numbering that window afresh admitted it again (found by review twice: 3 + 4 in a window whose limits were
 * 3, then 4, when C was pending; 10 + 4 in a window whose limits were 10, then 4, when C was in force and the
 * publisher read its clock 1 ms before the boundary). So before its process first counts in a window of C, a
 * window check announces the window's number in the file ({@code PolicyRegion.announceVolatile}, lock-free) and
 * then reads the action's publishing mark, and the publisher marks the action and then reads the highest number
 * announced ({@link RegimeEntry}): either the publisher sees the window, or the check waits for the publish and its claim
 * fails its validation (the generation moved) and is checked again. Exact whatever the pauses and whatever the
 * clocks.
 * Every new regime's base is the last number the regime it follows could use at the new epoch plus
 * {@link #NUMBER_JUMP} (a replaced pending regime's base plus the jump), so regimes own disjoint window
 * numbers: no window number is ever claimed under two regimes' caps, even when a publisher is descheduled
 * between reading its clock and flipping the generation, or a check's clock runs a little ahead.
 *
 * <p>No margin before the epoch is needed: a check that claimed under a generation that is no longer current
 * when it re-reads it gives its claim back and checks again under the new one (see {@link WindowDoor}), so what a
 * check admits never depends on how long ago the publish was.
 *
 * <p>How far numbers can go: a shard word keeps a window number's low 22 bits and reads them against its
 * shard's newest number ({@link ShardedWindow#number}), exactly while the word is less than 2<sup>22</sup>
 * windows behind it. Each publish moves the numbering on by 2<sup>20</sup> plus the windows elapsed, so a shard
 * left untouched across four publishes may read as a recent window; that only refuses (its count is stale), in
 * the one window whose tag matches, and the janitor reaps an idle window entry within a few cleanup intervals.
 * Replacing a pending regime moves its base on by 2<sup>20</sup> with no window elapsed, so four publishes inside
 * one window put the new regime's first window 2<sup>22</sup> past the window in force, with its tag; a claim's
 * receipt keeps the tag only, so a check whose clock is still in the window in force is refused on a shard already
 * there ({@link ShardedWindow#tryClaim}) rather than claim where its give-back could not find the claim.
 */
public final class PolicyPlanner
{
    /** The gap between one regime's last window number and the next regime's first. */
    public static final long NUMBER_JUMP = 1L << 20;

    private PolicyPlanner()
    {
    }

    /**
     * @param old        the current block, or null when the file has no policy yet.
     * @param limit      the new limit.
     * @param windowMs   the new window.
     * @param shadow     the new mode.
     * @param generation the generation being published.
     * @param nowMs      the publisher's monotonic ms.
     * @param announced  the highest window number a check announced before counting in it
     *                   ({@code PolicyRegion.enteredVolatile}, read under the policy guard), {@link Long#MIN_VALUE}
     *                   when none.
     * @return the block to publish.
     */
    public static PolicyRegion.Block plan(final PolicyRegion.Block old, final long limit, final long windowMs,
        final boolean shadow, final long generation, final long nowMs, final long announced)
    {
        if (old == null)
        {
            return new PolicyRegion.Block(limit, windowMs, shadow, generation, 0, 0, limit, windowMs, 0, 0);
        }
        if (old.limit() == limit && old.windowMs() == windowMs)
        {
            return new PolicyRegion.Block(limit, windowMs, shadow, old.version(), old.epochMs(), old.base(),
                old.prevLimit(), old.prevWindowMs(), old.prevEpochMs(), old.prevBase());
        }
        // the first block's two regimes are one, numbered from 0 for all time (monotonic ms may be negative)
        final boolean first = old.base() == old.prevBase() && old.epochMs() == old.prevEpochMs();
        // numbers grow from regime to regime: one at or above C's base is a window of C (any, in the first block)
        final boolean entered = announced != Long.MIN_VALUE && (first || announced >= old.base());
        if (nowMs < old.epochMs() && !first && !entered)
        {
            // the pending regime never came into force: replace it, numbered past anything it could have used
            return new PolicyRegion.Block(limit, windowMs, shadow, generation, old.epochMs(),
                base(old.base() + NUMBER_JUMP, old.epochMs()), old.prevLimit(), old.prevWindowMs(), old.prevEpochMs(),
                old.prevBase());
        }
        final WindowRegime inForce = new WindowRegime(old.limit(), old.windowMs(), old.epochMs(), old.base(), 1);
        // a regime a check entered is in force from its epoch on, and up to its last window announced, whatever this
        // clock reads
        final long reached = first ? nowMs : Math.max(nowMs, old.epochMs());
        final long at = entered ? Math.max(reached, inForce.startMs(announced)) : reached;
        final long number = inForce.number(at);
        // switched off, nothing was counted: the new regime can start now; else at the end of this window
        final long epoch = old.limit() == 0 ? at : inForce.startMs(number) + inForce.windowMs();
        return new PolicyRegion.Block(limit, windowMs, shadow, generation, epoch, base(number + NUMBER_JUMP, epoch),
            old.limit(), old.windowMs(), old.epochMs(), old.base());
    }

    /**
     * Base 0 at epoch 0 marks the first block's regime, which numbers all time and needs no entry
     * ({@link ActionRule}); a later regime landing there by chance (negative monotonic clocks) moves up one number,
     * which the jump leaves room for. Found by review: such a regime was never recorded as entered.
     */
    private static long base(final long base, final long epochMs)
    {
        return base == 0 && epochMs == 0 ? 1 : base;
    }
}
