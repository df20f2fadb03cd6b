package dev.floodgate.door;

import org.agrona.concurrent.AtomicBuffer;

/**
 * The per-CPU-sharded fixed window of {@code checkLimitInCaller}.
 *
 * <p>Windows are aligned intervals of {@code windowMs} of the monotonic clock, numbered
 * {@code floor(nowMs / windowMs)}. The quota is split over the file's S shards, caps summing to exactly
 * {@code limit} with the remainder on the low shards (so a limit below S uses only its first {@code limit}
 * shards). Each shard is one word on a cache line of its own:
 *
 * <pre>
 *   63                                    24 23                     0
 *  +----------------------------------------+------------------------+
 *  |   window number, low 40 bits            |   used in that window  |
 *  +----------------------------------------+------------------------+
 * </pre>
 *
 * A claim is one compare-and-set that either adds one within the shard's cap for the current window or, when
 * the word holds an older window or is unused (count 0: as created or reset; claims never leave a word at 0),
 * starts the shard afresh at 1. Window numbers only move forward in a word,
 * and a word from a newer window (another process's clock read a little later) is claimed in that newer
 * window, so each window's count is exact: a limit of n admits at most n per window, whatever the number
 * of threads and processes. A caller whose shard is exhausted sweeps the others before refusing. Window
 * numbers are compared by their 40-bit difference, which stays unambiguous for 2<sup>39</sup> windows.
 * Immutable and thread-safe.
 */
public final class ShardedWindow
{
    static final int USED_BITS = 24;
    static final long USED_MASK = (1L << USED_BITS) - 1;
    private static final int WINDOW_SHIFT = 64 - 40;

    private final long windowMs;
    private final int shards;
    private final int activeShards;
    private final long baseCap;
    private final int remainder;

    /**
     * @param limit    tokens per window, 1 to 2<sup>24</sup>-1.
     * @param windowMs the window.
     * @param shards   the file's shard count.
     */
    public ShardedWindow(final long limit, final long windowMs, final int shards)
    {
        this.windowMs = windowMs;
        this.shards = shards;
        this.activeShards = (int)Math.min(shards, limit);
        this.baseCap = limit / shards;
        this.remainder = (int)(limit % shards);
    }

    /** @return the window in milliseconds. */
    public long windowMs()
    {
        return windowMs;
    }

    /** @return the shards that have a non-zero cap: the first {@code min(S, limit)}. */
    public int activeShards()
    {
        return activeShards;
    }

    /** @return the file's shard count. */
    public int shards()
    {
        return shards;
    }

    /**
     * @param shard a shard index.
     * @return that shard's cap: {@code floor(limit / S)}, plus one for the first {@code limit mod S} shards.
     */
    public long cap(final int shard)
    {
        return baseCap + (shard < remainder ? 1 : 0);
    }

    /**
     * @param nowMs monotonic milliseconds.
     * @return the window number, flooring for negative times.
     */
    public long windowNumber(final long nowMs)
    {
        return Math.floorDiv(nowMs, windowMs);
    }

    /**
     * @param windowNumber a window number.
     * @param used         tokens used.
     * @return the shard word.
     */
    public static long word(final long windowNumber, final long used)
    {
        return windowNumber << USED_BITS | used;
    }

    /** @param word a shard word. @return the tokens it records as used. */
    public static long used(final long word)
    {
        return word & USED_MASK;
    }

    /** @param word a shard word. @return the low 40 bits of its window number. */
    public static long window40(final long word)
    {
        return word >>> USED_BITS;
    }

    /**
     * @param windowNumber the current window number.
     * @param word         a shard word.
     * @return positive when the word is from an older window, 0 for this window, negative for a newer one.
     */
    public static long age(final long windowNumber, final long word)
    {
        return (windowNumber - window40(word)) << WINDOW_SHIFT >> WINDOW_SHIFT;
    }

    /**
     * @param word         a shard word.
     * @param windowNumber the current window number.
     * @return tokens used in the current window by this shard (0 when the word is older).
     */
    public static long usedIn(final long word, final long windowNumber)
    {
        return age(windowNumber, word) > 0 ? 0 : used(word);
    }

    /**
     * @param word         a shard word.
     * @param windowNumber the current window number.
     * @return true when the word holds no count of the current or a newer window.
     */
    public static boolean isOver(final long word, final long windowNumber)
    {
        return used(word) == 0 || age(windowNumber, word) > 0;
    }

    /**
     * Claims one token from one shard.
     *
     * @param buffer       the entry's value.
     * @param offset       the shard word's offset.
     * @param cap          the shard's cap, at least 1.
     * @param windowNumber the current window number.
     * @return 1 when claimed, 0 when the shard is exhausted, -1 when a compare-and-set lost a race (retry).
     */
    public static int tryClaim(final AtomicBuffer buffer, final int offset, final long cap, final long windowNumber)
    {
        final long word = buffer.getLongVolatile(offset);
        final long next;
        if (used(word) == 0 || age(windowNumber, word) > 0)
        {
            // Unused (as created or reset: no window of its own yet) or from an older window: start afresh.
            next = word(windowNumber, 1);
        }
        else if (used(word) < cap)
        {
            next = word + 1;
        }
        else
        {
            return 0;
        }
        return buffer.compareAndSetLong(offset, word, next) ? 1 : -1;
    }

    /**
     * @param nowMs        monotonic milliseconds.
     * @param windowNumber the window containing {@code nowMs}.
     * @return milliseconds until that window ends, at least 1.
     */
    public long retryAfterMs(final long nowMs, final long windowNumber)
    {
        return Math.max(1, (windowNumber + 1) * windowMs - nowMs);
    }
}
