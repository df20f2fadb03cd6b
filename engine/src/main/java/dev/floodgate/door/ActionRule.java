package dev.floodgate.door;

import dev.floodgate.store.PolicyRegion;

/**
 * One action's part of a {@link PolicySnapshot}: the bucket arithmetic of its current limit and the window
 * door's two regimes (the one in force before the last change's epoch, and the current one). Immutable but
 * for the cursor, a cache of the current window that any thread may replace with another immutable cursor.
 */
public final class ActionRule
{
    final long limit;
    final long windowMs;
    final boolean shadow;
    final long version;
    final TokenBucket bucket;
    final WindowRegime previous;
    final WindowRegime current;
    final int sweepShards;
    /** The first moment the two regimes cover ({@link #unknownForMs}): the previous one's epoch. */
    private final long knownFromMs;
    /**
     * The highest window number of the current regime this process announced it counts in ({@link RegimeEntry}).
     * Volatile (a plain load on x86): a thread that reads another's number must also see the policy generation that
     * thread saw when it announced, or its claim could validate against a generation a publish had already replaced
     * (found by review; possible on weaker memory models). A thread that reads it late announces again, which changes
     * nothing.
     */
    volatile long announced = Long.MIN_VALUE;
    /** The first block's regime: its previous regime is itself (numbered from 0 for all time). */
    private final boolean first;
    /** When a thread of this process last gave up waiting for a publish to announce (ticker ns, 0: never). */
    long enterFailedAt;
    WindowCursor cursor = new WindowCursor(0, 0, 0, null);

    /** The window containing a moment, with its bounds and regime. */
    record WindowCursor(long number, long startMs, long endMs, WindowRegime regime)
    {
    }

    ActionRule(final PolicyRegion.Block block, final int shards)
    {
        this.limit = block.limit();
        this.windowMs = block.windowMs();
        this.shadow = block.shadow();
        this.version = block.version();
        this.bucket = limit > 0 && TokenBucket.fits(limit, windowMs) ? new TokenBucket(limit, windowMs) : null;
        this.current = new WindowRegime(limit, windowMs, block.epochMs(), block.base(), shards);
        this.previous = new WindowRegime(block.prevLimit(), block.prevWindowMs(), block.prevEpochMs(),
            block.prevBase(), shards);
        this.sweepShards = Math.max(current.activeShards(), previous.activeShards());
        // the first block's regime (epoch and base 0) numbers all time, also once a publish made it the previous one
        final boolean eternal = previous.base() == 0 && previous.epochMs() == 0;
        this.knownFromMs = eternal ? Long.MIN_VALUE : previous.epochMs();
        this.first = current.base() == 0 && current.epochMs() == 0;
    }

    /**
     * @param action the action this rule is for (named in the error).
     * @return the bucket arithmetic of an action that is on.
     * @throws IllegalStateException when the limit is a window-only quota: one the token bucket cannot
     * represent exactly (a byte-scale limit), which only the window door serves.
     */
    TokenBucket bucket(final dev.floodgate.Action action)
    {
        if (bucket == null)
        {
            throw new IllegalStateException(action + ": the node's limit " + limit + " per " + windowMs +
                " ms is a window-only quota (checkLimitInCaller): the token bucket cannot represent it exactly; " +
                "expected a limit from 1 to " + TokenBucket.MAX_LIMIT + " with limit / gcd(limit, window in ns) " +
                "at most " + TokenBucket.MAX_SCALE + " for checkLimit, probe and bucket charges");
        }
        return bucket;
    }

    /**
     * @param regime the regime a check's window belongs to (its cursor's).
     * @return whether a check must announce its window before counting in it: in the current regime, which a
     * publish ends; not in the previous one, which no publish replaces (the first block's two are one).
     */
    boolean announces(final WindowRegime regime)
    {
        return regime == current || first;
    }

    /** @return true when checks admit without touching the table (limit 0). */
    boolean isOff()
    {
        return limit == 0;
    }

    /**
     * Whether the policy knows which regime owns a moment: the file keeps two regimes, so a moment before the
     * previous one's epoch (a clock a tick behind the publisher's, just after two publishes at a boundary) belongs
     * to a regime the policy no longer holds. Numbering it by the previous regime admitted in a window already spent
     * (found by review: an off/on flip at a boundary, or two publishes either side of one). The first block's regime
     * owns all time, negative monotonic ms included, also as the previous regime.
     *
     * @param nowMs monotonic ms.
     * @return the ms until the moment is known (0 when it is).
     */
    long unknownForMs(final long nowMs)
    {
        return nowMs >= knownFromMs ? 0 : knownFromMs - nowMs;
    }

    /** @param nowMs monotonic ms. @return the regime numbering that moment. */
    WindowRegime regimeAt(final long nowMs)
    {
        return nowMs >= current.epochMs() ? current : previous;
    }

    /** @param number a window number. @return the regime that window belongs to. */
    WindowRegime regimeOf(final long number)
    {
        return number >= current.base() ? current : previous;
    }

    WindowCursor cursor(final long nowMs)
    {
        final WindowCursor c = cursor;
        if (nowMs >= c.startMs && nowMs < c.endMs && c.regime != null)
        {
            return c;
        }
        final WindowRegime regime = regimeAt(nowMs);
        final long number = regime.number(nowMs);
        final long start = regime.startMs(number);
        // the previous regime's last window ends at the current epoch, whatever its own length says
        final long end = regime == previous ? Math.min(start + regime.windowMs(), current.epochMs()) :
            start + regime.windowMs();
        final WindowCursor fresh = new WindowCursor(number, start, end, regime);
        cursor = fresh;
        return fresh;
    }
}
