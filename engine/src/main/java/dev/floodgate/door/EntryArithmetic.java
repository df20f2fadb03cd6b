package dev.floodgate.door;

import dev.floodgate.store.PolicyRegion;

/**
 * What an entry's state words mean at a given moment, computed with the doors' own arithmetic under the
 * file's policy: the readers ({@code dev.floodgate.reader}) show what the next check would see, never a copy
 * of the arithmetic that could drift from it. Stateless and thread-safe; allocates (a cold path).
 */
public final class EntryArithmetic
{
    private static final long NANOS_PER_MS = 1_000_000L;

    private EntryArithmetic()
    {
    }

    /**
     * A bucket as the next check would see it.
     *
     * @param tokens           whole tokens available.
     * @param capacity         the limit of the units the check would use.
     * @param nanosToNextToken nanoseconds to the next whole token, 0 when full.
     * @param nanosToFull      nanoseconds until every token is back, 0 when full.
     */
    public record Bucket(long tokens, long capacity, long nanosToNextToken, long nanosToFull)
    {
    }

    /**
     * A window entry in the window the policy's regimes number at the moment.
     *
     * @param limit     the limit of the regime that window belongs to (0: the action is off).
     * @param windowMs  that regime's window.
     * @param used      tokens used in it, over every shard.
     * @param shardUsed tokens used per shard.
     * @param shardCap  each shard's cap in that regime.
     * @param nanosLeft nanoseconds until the window ends.
     */
    public record Window(long limit, long windowMs, long used, long[] shardUsed, long[] shardCap, long nanosLeft)
    {
    }

    /**
     * A bucket's state. The TAT word is in the entry's units; when the policy's bucket version is newer, the
     * next check converts the word first ({@link BucketDoor}), so this converts it the same way (without writing).
     *
     * @param entryLimit        the limit of the entry's units.
     * @param entryWindowMs     the window of the entry's units.
     * @param entryUnitsVersion the policy version the entry's units belong to.
     * @param tat               the TAT word.
     * @param block             the action's policy block.
     * @param nowNanos          monotonic time.
     * @return the state, or null when the entry's units cannot be read as a bucket (a damaged entry).
     */
    public static Bucket bucket(final long entryLimit, final long entryWindowMs, final long entryUnitsVersion,
        final long tat, final PolicyRegion.Block block, final long nowNanos)
    {
        if (!TokenBucket.fits(entryLimit, entryWindowMs))
        {
            return null;
        }
        final TokenBucket from = new TokenBucket(entryLimit, entryWindowMs);
        if (block != null && entryUnitsVersion < block.version() && block.limit() > 0 &&
            (entryLimit != block.limit() || entryWindowMs != block.windowMs()) &&
            TokenBucket.fits(block.limit(), block.windowMs()))
        {
            final TokenBucket to = new TokenBucket(block.limit(), block.windowMs());
            long word = from.convert(tat, nowNanos, to);
            word = word == tat ? word + 1 : word; // as SlotResolver.upgrade does
            return new Bucket(to.available(word, nowNanos), block.limit(), to.nanosToNextToken(word, nowNanos),
                to.nanosToFull(word, nowNanos));
        }
        return new Bucket(from.available(tat, nowNanos), entryLimit, from.nanosToNextToken(tat, nowNanos),
            from.nanosToFull(tat, nowNanos));
    }

    /**
     * A window entry's state in the window the policy's regimes put {@code nowNanos} in.
     *
     * @param words    the shard words.
     * @param newest   each shard's newest window number, read after its word.
     * @param block    the action's policy block.
     * @param shards   the file's shard count.
     * @param nowNanos monotonic time.
     * @return the state.
     */
    public static Window window(final long[] words, final long[] newest, final PolicyRegion.Block block,
        final int shards,
        final long nowNanos)
    {
        final ActionRule rule = new ActionRule(block, shards);
        final long nowMs = Math.floorDiv(nowNanos, NANOS_PER_MS);
        final ActionRule.WindowCursor cursor = rule.cursor(nowMs);
        final WindowRegime regime = rule.regimeOf(cursor.number());
        final long[] used = new long[words.length];
        final long[] caps = new long[words.length];
        long total = 0;
        for (int shard = 0; shard < words.length; shard++)
        {
            caps[shard] = regime.cap(shard);
            final long held = ShardedWindow.number(words[shard], newest[shard]);
            final boolean unused = words[shard] == 0 && newest[shard] == 0;
            // a shard on a newer number no regime owns, or 2^22 windows or more past the check's, refuses the
            // window in force (ShardedWindow.tryClaim): so does the probe, which said tokens remained where every
            // check was refused (found by review)
            used[shard] = !unused && held > cursor.number() && ShardedWindow.refuses(held, cursor.number(),
                rule.previous, rule.current) ? Math.max(caps[shard], ShardedWindow.used(words[shard])) :
                ShardedWindow.usedIn(words[shard], newest[shard], cursor.number());
            total += used[shard];
        }
        return new Window(regime.limit(), regime.windowMs(), total, used, caps, cursor.endMs() * NANOS_PER_MS - nowNanos);
    }
}
