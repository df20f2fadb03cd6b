package dev.floodgate.door;

import dev.floodgate.store.Entry;

/**
 * The per-CPU-sharded fixed window of {@code checkLimitInCaller}.
 *
 * <p>Windows are aligned intervals of {@code windowMs} of the monotonic clock, numbered by the policy's
 * regimes ({@link WindowRegime}; the instance methods here number {@code floor(nowMs / windowMs)}). The quota is split over the file's S shards, caps summing to exactly
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
 * Every write loads its word, then the entry's generation, then compares-and-sets, so nothing is written on
 * memory the entry no longer owns. Immutable and thread-safe.
 */
public final class ShardedWindow
{
    static final int USED_BITS = 24;
    static final long USED_MASK = (1L << USED_BITS) - 1;
    private static final int WINDOW_SHIFT = 64 - 40;
    private static final long WINDOW40_MASK = (1L << 40) - 1;

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
     * Claims up to {@code want} tokens from one shard, in the current window or, when the word already holds a
     * newer window, in that one, as long as the entry's generation is still {@code generation}. The cap is the
     * one of the regime the claimed window belongs to, so a check still under an old regime never fills a
     * new-regime window beyond the new cap. An all-zero word (as created or reset) counts as older than any
     * window.
     *
     * <p>The generation is loaded (acquire) after the word and before the compare-and-set, on every attempt:
     * a check that resumes after the entry was tombstoned, reaped and its memory reused sees the new
     * generation and writes nothing. (What remains: a thread that stops between that load and its
     * compare-and-set for longer than the janitor's grace, and whose expected word then matches the reused
     * memory bit for bit. The bucket has the same window.)
     *
     * <p>A word holding a newer number that no regime of the caller's policy owns (past the previous regime's
     * last window, below the current base) was left by a check on an older policy whose regime a publish
     * replaced; it moved the word off the window in force and lost that window's count. A caller still in the
     * previous regime's last window (its clock read before that check's) is refused on this shard rather
     * than counted there: it under-admits until the window ends, never over-admits.
     *
     * @param entry        the entry.
     * @param want         tokens wanted, at least 1.
     * @param windowNumber the current window number.
     * @param previous     the regime before the current one.
     * @param current      the current regime (windows numbered from its base on).
     * @param shard        the shard index (its word and its cap).
     * @param generation   the generation the caller resolved.
     * @return a receipt: a shard word whose {@link #used} is the tokens claimed and whose {@link #window40} is
     * the window they were claimed in (for {@link #giveBack}); or, with {@code used == 0}, {@link #EXHAUSTED},
     * {@link #RACE} (a compare-and-set lost: retry) or {@link #STALE} (the generation changed: resolve again).
     */
    public static long tryClaim(final Entry entry, final long want, final long windowNumber,
        final WindowRegime previous, final WindowRegime current, final int shard, final long generation)
    {
        final long word = entry.shardVolatile(shard);
        if (!entry.isCurrentAcquire(generation))
        {
            return STALE;
        }
        final long age = age(windowNumber, word);
        final long number;
        final long used;
        if (age > 0 || word == 0)
        {
            number = windowNumber;
            used = 0;
        }
        else
        {
            number = windowNumber - age;
            used = used(word);
            if (age < 0 && !owned(number, previous, current))
            {
                // A number between the previous regime's last window and the current base belongs to no regime
                // of this policy: a check on an older snapshot (it gives its claim back) moved the word there
                // from the window in force, whose count is lost. Refuse rather than count in it.
                return EXHAUSTED;
            }
        }
        final long cap = (number >= current.base() ? current : previous).cap(shard);
        final long take = Math.min(want, cap - used);
        if (take <= 0)
        {
            return EXHAUSTED;
        }
        if (!entry.casShard(shard, word, word(number, used + take)))
        {
            return RACE;
        }
        return word(number, take);
    }

    /**
     * @param number   a window number.
     * @param previous the regime before the current one.
     * @param current  the current regime.
     * @return false for a number past the previous regime's last window and below the current base: no
     * regime of this policy claims in it.
     */
    public static boolean owned(final long number, final WindowRegime previous, final WindowRegime current)
    {
        return number >= current.base() || number <= previous.number(current.epochMs() - 1);
    }

    /** {@link #tryClaim}: the shard has nothing left in the window. */
    public static final long EXHAUSTED = 0;
    /** {@link #tryClaim}: a compare-and-set lost a race; try again. */
    public static final long RACE = 1L << USED_BITS;
    /** {@link #tryClaim}: the entry's generation changed; resolve it again. */
    public static final long STALE = 2L << USED_BITS;

    /**
     * Gives back a claim, only while the word still holds the window it was claimed in, never below zero, and
     * only while the entry's generation is still {@code generation} (loaded after the word, before the
     * compare-and-set, as in {@link #tryClaim}): a give-back can only undo its own claim (counts in a window
     * only grow but for give-backs, so the word holds at least this claim's tokens), never another check's,
     * and never writes memory the entry no longer owns.
     *
     * @param entry      the entry.
     * @param shard      the shard the claim was made on.
     * @param receipt    what {@link #tryClaim} returned for the claim.
     * @param generation the generation the claim was made under.
     * @return false when the generation changed (nothing written), else true.
     */
    public static boolean giveBack(final Entry entry, final int shard, final long receipt, final long generation)
    {
        final long amount = used(receipt);
        while (true)
        {
            final long word = entry.shardVolatile(shard);
            if (!entry.isCurrentAcquire(generation))
            {
                return false;
            }
            if (window40(word) != window40(receipt) || used(word) < amount)
            {
                return true; // the window is over: its count no longer matters
            }
            if (entry.casShard(shard, word, word - amount))
            {
                return true;
            }
        }
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
