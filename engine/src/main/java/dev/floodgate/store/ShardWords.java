package dev.floodgate.store;

import static dev.floodgate.store.EntryLayout.SHARDS_OFFSET;
import static dev.floodgate.store.EntryLayout.SHARD_NEWEST_OFFSET;
import static dev.floodgate.store.EntryLayout.SHARD_STRIDE;

/**
 * The shard lines of a window entry (each shard's word, {@code window tag | used}, and its newest window number)
 * and of a blocked counter (each shard's refusals), over an {@link Entry}: one cache line per shard, so CPUs
 * claiming from one hot key's different shards never share a line. The one owner of these words; the header,
 * the generation and the lock-free write protocol are {@link Entry}'s, and a {@code cas...} here is a lock-free
 * write only under that protocol: load the word, pass {@link Entry#isCurrentAcquire}, then compare-and-set
 * against the word loaded (it returns true when the word was {@code expected} and is now {@code next}).
 *
 * <p>A final class of static methods over the entry, as {@link BucketWords} is and for the same reason. Stateless.
 */
public final class ShardWords
{
    private ShardWords()
    {
    }

    /** @return the number of shard lines the entry holds (0 for a bucket and a lease). */
    public static int count(final Entry entry)
    {
        final byte kind = entry.kind();
        return kind == Entry.KIND_BUCKET || kind == Entry.KIND_LEASE ? 0 :
            (entry.value.capacity() - SHARDS_OFFSET) / SHARD_STRIDE;
    }

    /** @return shard {@code shard}'s word, volatile. */
    public static long wordVolatile(final Entry entry, final int shard)
    {
        return entry.value.getLongVolatile(SHARDS_OFFSET + shard * SHARD_STRIDE);
    }

    /** @return shard {@code shard}'s word, plain (a copy). */
    public static long wordPlain(final Entry entry, final int shard)
    {
        return entry.value.getLong(SHARDS_OFFSET + shard * SHARD_STRIDE);
    }

    /** Moves shard {@code shard}'s word: see the class comment. */
    public static boolean casWord(final Entry entry, final int shard, final long expected, final long next)
    {
        return entry.value.compareAndSetLong(SHARDS_OFFSET + shard * SHARD_STRIDE, expected, next);
    }

    /**
     * @return shard {@code shard}'s newest window number, volatile: no window number its word holds is newer
     * (see {@code ShardedWindow}). Load it after the word.
     */
    public static long newestVolatile(final Entry entry, final int shard)
    {
        return entry.value.getLongVolatile(SHARDS_OFFSET + shard * SHARD_STRIDE + SHARD_NEWEST_OFFSET);
    }

    /** Moves shard {@code shard}'s newest window number: see the class comment. */
    public static boolean casNewest(final Entry entry, final int shard, final long expected, final long next)
    {
        return entry.value.compareAndSetLong(SHARDS_OFFSET + shard * SHARD_STRIDE + SHARD_NEWEST_OFFSET, expected,
            next);
    }

    /** Stores a shard word, volatile; under the segment's write lock (a reset). */
    public static void putWordVolatile(final Entry entry, final int shard, final long word)
    {
        entry.value.putLongVolatile(SHARDS_OFFSET + shard * SHARD_STRIDE, word);
    }

    /**
     * Adds one refusal to a blocked counter's shard while the entry is still {@code generation}'s: a
     * compare-and-set loop rather than an add, because an add has no expected value and one that stalls after
     * its generation test would land on whatever the memory became.
     *
     * @return false when the generation changed before the count landed (nothing written).
     */
    public static boolean addRefusalIfCurrent(final Entry entry, final long generation, final int shard)
    {
        final int offset = SHARDS_OFFSET + shard * SHARD_STRIDE;
        while (true)
        {
            final long count = entry.value.getLongVolatile(offset);
            if (!entry.isCurrentAcquire(generation))
            {
                return false;
            }
            if (entry.value.compareAndSetLong(offset, count, count + 1))
            {
                return true;
            }
        }
    }

    /**
     * @return the refusals a blocked counter holds: the sum of its shards, volatile loads in the file (a
     * copy's plain loads give the same).
     */
    public static long blockedCountVolatile(final Entry entry)
    {
        long sum = 0;
        for (int shard = 0, n = count(entry); shard < n; shard++)
        {
            sum += wordVolatile(entry, shard);
        }
        return sum;
    }

    /** The shards' part of {@link Entry#stateSumVolatile}: their words and, for a window, their newest numbers. */
    static long stateSumVolatile(final Entry entry, final boolean window)
    {
        long sum = 0;
        for (int shard = 0, n = count(entry); shard < n; shard++)
        {
            sum += wordVolatile(entry, shard) + (window ? newestVolatile(entry, shard) : 0);
        }
        return sum;
    }
}
