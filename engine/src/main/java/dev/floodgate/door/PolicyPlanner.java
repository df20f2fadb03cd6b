package dev.floodgate.door;

import dev.floodgate.store.PolicyRegion;

/**
 * Computes the blocks a publish writes: what changes for each action, and from when.
 *
 * <p>The bucket changes at once: the block's version becomes the new generation, and the first check of
 * each bucket that sees it converts the bucket's debt to the new units (see {@link Doors}).
 *
 * <p>The window door changes at a window boundary. With the publisher's clock at {@code t}, the new
 * regime starts at the end of the regime window containing {@code t + }{@link #SWITCH_MARGIN_MS}, and
 * its first window number is one past that window's. So no window ever gets fresh quota or re-sliced caps
 * mid-window, and windows under the new regime carry numbers no word of the old regime can hold. The
 * margin covers a check in another process that loaded the old generation just before the flip and claims
 * a moment later, and clocks read a moment apart: it claims under the old regime's numbering, which stays
 * right until the epoch. A second change published before the pending epoch replaces the pending regime
 * (same epoch and base): the old regime stays in force until then either way. An action switched on from
 * off (limit 0) starts its regime at once: nothing was counted while it was off.
 */
public final class PolicyPlanner
{
    /** Publication must precede a new regime's epoch by at least this much. */
    public static final long SWITCH_MARGIN_MS = 100;

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
     * @return the block to publish.
     */
    public static PolicyRegion.Block plan(final PolicyRegion.Block old, final long limit, final long windowMs,
        final boolean shadow, final long generation, final long nowMs)
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
        final WindowRegime inForce = new WindowRegime(old.limit(), old.windowMs(), old.epochMs(), old.base(), 1);
        if (old.limit() == 0 && nowMs >= old.epochMs())
        {
            // switched off, so nothing was counted: the new regime can start now, numbered past the old one
            return new PolicyRegion.Block(limit, windowMs, shadow, generation, nowMs, inForce.number(nowMs) + 1,
                old.limit(), old.windowMs(), old.epochMs(), old.base());
        }
        final long at = nowMs + SWITCH_MARGIN_MS;
        if (at < old.epochMs())
        {
            // the previous regime is still in force at the pending epoch: replace the pending regime only
            return new PolicyRegion.Block(limit, windowMs, shadow, generation, old.epochMs(), old.base(),
                old.prevLimit(), old.prevWindowMs(), old.prevEpochMs(), old.prevBase());
        }
        final long number = inForce.number(at);
        final long epoch = inForce.startMs(number) + inForce.windowMs();
        return new PolicyRegion.Block(limit, windowMs, shadow, generation, epoch, number + 1,
            old.limit(), old.windowMs(), old.epochMs(), old.base());
    }
}
