package dev.floodgate.door;

import dev.floodgate.store.Entry;
import dev.floodgate.store.ShardWords;

/**
 * The per-CPU-sharded fixed window of {@code checkLimitInCaller}: the shard words and the claim on one of them.
 *
 * <p>Windows are numbered by the policy's regimes ({@link WindowRegime}, which also splits a limit into the
 * shards' caps). Each shard has a cache line of its own (see {@link Entry}) holding two words:
 *
 * <pre>
 *   63                 42 41                                            0
 *  +---------------------+-----------------------------------------------+
 *  | window tag (22)     |   used in that window (42)                    |  the word: what claims CAS
 *  +---------------------+-----------------------------------------------+
 *  |   newest window number (64): no window the word holds is newer       |  raised before the word moves
 *  +---------------------------------------------------------------------+
 * </pre>
 *
 * The tag is the window number's low {@value #TAG_BITS} bits; the count takes the other {@value #USED_BITS}, so
 * a shard's cap, and a window's limit on one shard, may be up to {@link #MAX_CAP} (byte-scale quotas). The full
 * number a word holds is the newest number at or below the shard's newest number with its tag
 * ({@link #number}). A claim that starts the shard in a window past the newest number raises the newest number
 * first (compare-and-set, generation-checked like the word), so a word's number is never above its newest
 * number: every word within 2<sup>22</sup> windows of the newest reads back exactly. An older word (a shard
 * idle while its neighbours moved on by 4 million windows, or across many policy changes) may read as a recent
 * window with a stale count: that can only refuse, never admit more, and only in a window whose tag matches.
 *
 * <p>A claim's receipt keeps the tag only, and its give-back reads it from the window the claiming check started
 * in ({@link #numberFrom}). So no claim lands 2<sup>22</sup> or more windows past that window: a check meeting a
 * shard that far ahead is refused on it ({@link #tryClaim}), and a give-back always finds the window its claim was
 * made in. The policy's numbering can put a shard that far ahead of a check a tick behind it: each replacement of
 * a pending regime moves its base on by {@link PolicyPlanner#NUMBER_JUMP}, and four publishes inside one window
 * put it 2<sup>22</sup> past the window in force, with the same tag.
 *
 * <p>A claim is one compare-and-set that either adds within the shard's cap for the current window or, when the
 * word holds an older window or is unused (word and newest number 0, as created), starts the shard afresh (a reset
 * zeroes the word only: it then reads as an empty window at or below the newest number). Window numbers
 * only move forward in a word, and a word from a newer window (another process's clock read a little later) is
 * claimed in that newer window, so each window's count is exact: a limit of n admits at most n per window,
 * whatever the number of threads and processes. Every write loads its words, then the entry's generation, then
 * compares-and-sets, so nothing is written on memory the entry no longer owns. Stateless.
 */
public final class ShardedWindow
{
    static final int USED_BITS = 42;
    static final int TAG_BITS = 64 - USED_BITS;
    static final long USED_MASK = (1L << USED_BITS) - 1;
    private static final long TAG_MASK = (1L << TAG_BITS) - 1;
    /** The largest count a shard word holds: a shard's cap, and so a one-shard window's limit, at most this. */
    public static final long MAX_CAP = USED_MASK;

    private ShardedWindow()
    {
    }

    /**
     * @param windowNumber a window number (only its low {@value #TAG_BITS} bits are kept).
     * @param used         tokens used, 0 to {@link #MAX_CAP}.
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

    /**
     * @param word   a shard word.
     * @param newest the shard's newest window number, loaded after the word.
     * @return the window number the word holds: the newest number at or below {@code newest} with its tag.
     */
    public static long number(final long word, final long newest)
    {
        return newest - ((newest - (word >>> USED_BITS)) & TAG_MASK);
    }

    /**
     * @param word         a shard word.
     * @param from         a window number the word's window is at or after, and less than 2<sup>22</sup> windows
     *                     past (a receipt and the window its check started in: {@link #tryClaim} refuses a claim
     *                     any farther).
     * @return the window number the word holds.
     */
    static long numberFrom(final long word, final long from)
    {
        return from + (((word >>> USED_BITS) - from) & TAG_MASK);
    }

    /**
     * @param word         a shard word.
     * @param newest       the shard's newest window number, loaded after the word.
     * @param windowNumber the current window number.
     * @return tokens used in the current or a newer window by this shard (0 when the word is older or unused).
     */
    public static long usedIn(final long word, final long newest, final long windowNumber)
    {
        return isOver(word, newest, windowNumber) ? 0 : used(word);
    }

    /**
     * @param word         a shard word.
     * @param newest       the shard's newest window number, loaded after the word.
     * @param windowNumber the current window number.
     * @return true when the word holds no count of the current or a newer window.
     */
    public static boolean isOver(final long word, final long newest, final long windowNumber)
    {
        return used(word) == 0 || number(word, newest) < windowNumber;
    }

    /**
     * Claims up to {@code want} tokens from one shard, in the current window or, when the word already holds a
     * newer window, in that one, as long as the entry's generation is still {@code generation}. The cap is the
     * one of the regime the claimed window belongs to, so a check still under an old regime never fills a
     * new-regime window beyond the new cap. An unused shard (word and newest number 0, as created) counts as
     * older than any window.
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
     * <p>Likewise a word holding a number 2<sup>22</sup> or more windows past {@code from} refuses: the receipt's
     * tag could not name it from there (after four publishes inside one window, the new regime's first window has
     * the tag of the window in force, and a check a tick behind gave its claim back to the wrong window: skipped, the
     * tokens stayed counted; found by review). Under-admission for that check until its clock catches up.
     *
     * @param entry        the entry.
     * @param want         tokens wanted, at least 1.
     * @param windowNumber the current window number (at or after {@code from}, less than 2<sup>22</sup> past it).
     * @param from         the window number the claiming check started from, which its give-backs read the
     *                     receipt against.
     * @param previous     the regime before the current one.
     * @param current      the current regime (windows numbered from its base on).
     * @param shard        the shard index (its word and its cap).
     * @param generation   the generation the caller resolved.
     * @return a receipt: a shard word whose {@link #used} is the tokens claimed and whose tag is the window
     * they were claimed in (for {@link #giveBack}); or, with {@code used == 0}, {@link #EXHAUSTED},
     * {@link #RACE} (a compare-and-set lost: retry) or {@link #STALE} (the generation changed: resolve again).
     */
    public static long tryClaim(final Entry entry, final long want, final long windowNumber, final long from,
        final WindowRegime previous, final WindowRegime current, final int shard, final long generation)
    {
        final long word = ShardWords.wordVolatile(entry, shard);
        final long newest = ShardWords.newestVolatile(entry, shard);
        if (!entry.isCurrentAcquire(generation))
        {
            return STALE;
        }
        final long held = number(word, newest);
        // unused: as created (both words 0). Not the word alone: a give-back that empties a shard in a window whose
        // tag is 0 leaves the word 0 too, and a check a tick behind then started the spent window before afresh on
        // it (found by review: up to twice the limit); with its newest number set, it reads as that window, empty.
        final boolean unused = word == 0 && newest == 0;
        final long number;
        final long used;
        if (unused || held < windowNumber)
        {
            number = windowNumber;
            used = 0;
        }
        else
        {
            number = held;
            used = used(word);
            if (held > windowNumber && refuses(held, from, previous, current))
            {
                // A number between the previous regime's last window and the current base belongs to no regime
                // of this policy: a check on an older snapshot (it gives its claim back) moved the word there
                // from the window in force, whose count is lost. Refuse rather than count in it. And one too far
                // past the check's start for its receipt to name.
                return EXHAUSTED;
            }
        }
        final long cap = (number >= current.base() ? current : previous).cap(shard);
        final long take = Math.min(want, cap - used);
        if (take <= 0)
        {
            return EXHAUSTED;
        }
        // the newest number first, so no reader ever sees the word's number above it; an unused word holds no
        // window, so its newest number may also come down to the claim's (a negative monotonic clock's numbers)
        if ((unused ? number != newest : number > newest) && !ShardWords.casNewest(entry, shard, newest, number))
        {
            return RACE;
        }
        if (!ShardWords.casWord(entry, shard, word, word(number, used + take)))
        {
            return RACE;
        }
        return word(number, take);
    }

    /**
     * {@link #tryClaim} with {@code from} the window number itself: a check claiming in the window it started in.
     */
    public static long tryClaim(final Entry entry, final long want, final long windowNumber,
        final WindowRegime previous, final WindowRegime current, final int shard, final long generation)
    {
        return tryClaim(entry, want, windowNumber, windowNumber, previous, current, shard, generation);
    }

    /**
     * @param held     a shard's window number, newer than the window a check claims in.
     * @param from     the window number that check started from.
     * @param previous the regime before the current one.
     * @param current  the current regime.
     * @return true when the check must not claim in {@code held}: no regime of its policy owns it
     * ({@link #owned}), or it is 2<sup>22</sup> or more windows past {@code from}, where a receipt's tag no longer
     * names it ({@link #numberFrom}).
     */
    static boolean refuses(final long held, final long from, final WindowRegime previous,
        final WindowRegime current)
    {
        return held - from > TAG_MASK || !owned(held, previous, current);
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
     * @param from       the window number the claiming check started from (its claims are in that window or
     *                   a newer one), which places the receipt's tag exactly.
     * @param generation the generation the claim was made under.
     * @return false when the generation changed (nothing written), else true.
     */
    public static boolean giveBack(final Entry entry, final int shard, final long receipt, final long from,
        final long generation)
    {
        final long amount = used(receipt);
        final long claimed = numberFrom(receipt, from);
        while (true)
        {
            final long word = ShardWords.wordVolatile(entry, shard);
            final long newest = ShardWords.newestVolatile(entry, shard);
            if (!entry.isCurrentAcquire(generation))
            {
                return false;
            }
            if (used(word) < amount || number(word, newest) != claimed)
            {
                return true; // the window is over: its count no longer matters
            }
            if (ShardWords.casWord(entry, shard, word, word - amount))
            {
                return true;
            }
        }
    }
}
