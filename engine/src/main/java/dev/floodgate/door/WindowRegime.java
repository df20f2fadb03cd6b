package dev.floodgate.door;

/**
 * One numbering of the window door's windows: from {@code epochMs} on, window {@code base + k} is
 * {@code [epochMs + k windowMs, epochMs + (k + 1) windowMs)}, with caps summing to {@code limit} over the
 * file's shards. A policy change of limit or window starts a new regime at the end of the old regime's
 * window, with {@code base} {@link PolicyPlanner#NUMBER_JUMP} past the old regime's last window, so window
 * numbers only grow across a change and a shard word's number alone says which regime (and so which cap) it
 * was claimed under.
 * Immutable.
 */
public final class WindowRegime
{
    private final long limit;
    private final long windowMs;
    private final long epochMs;
    private final long base;
    private final int activeShards;
    private final long baseCap;
    private final int remainder;

    /**
     * @param limit    tokens per window.
     * @param windowMs the window.
     * @param epochMs  where numbering starts (monotonic ms).
     * @param base     the number of the window starting at {@code epochMs}.
     * @param shards   the file's shard count.
     */
    public WindowRegime(final long limit, final long windowMs, final long epochMs, final long base,
        final int shards)
    {
        this.limit = limit;
        this.windowMs = Math.max(1, windowMs);
        this.epochMs = epochMs;
        this.base = base;
        this.activeShards = (int)Math.min(shards, limit);
        this.baseCap = limit / shards;
        this.remainder = (int)(limit % shards);
    }

    /** @return tokens per window. */
    public long limit()
    {
        return limit;
    }

    /** @return the window in milliseconds. */
    public long windowMs()
    {
        return windowMs;
    }

    /** @return where this regime's numbering starts. */
    public long epochMs()
    {
        return epochMs;
    }

    /** @return the first window number of this regime. */
    public long base()
    {
        return base;
    }

    /** @return shards with a non-zero cap. */
    public int activeShards()
    {
        return activeShards;
    }

    /** @param shard a shard. @return its cap: {@code floor(limit / S)}, plus one on the first {@code limit mod S}. */
    public long cap(final int shard)
    {
        return baseCap + (shard < remainder ? 1 : 0);
    }

    /** @param nowMs monotonic ms. @return the window number containing it. */
    public long number(final long nowMs)
    {
        return base + Math.floorDiv(nowMs - epochMs, windowMs);
    }

    /** @param number a window number of this regime. @return where that window starts. */
    public long startMs(final long number)
    {
        return epochMs + (number - base) * windowMs;
    }
}
