package dev.floodgate.store;

import static dev.floodgate.store.EntryLayout.LEASE_EMPTY_UNTIL_OFFSET;
import static dev.floodgate.store.EntryLayout.LEASE_LINES_OFFSET;
import static dev.floodgate.store.EntryLayout.LEASE_REFILL_OFFSET;
import static dev.floodgate.store.EntryLayout.LEASE_SEQUENCE_OFFSET;
import static dev.floodgate.store.EntryLayout.SHARD_STRIDE;
import static dev.floodgate.store.EntryLayout.STATE_OFFSET;

/**
 * A lease entry's own words (issue 12), over an {@link Entry}: its central balance (line 0, where a bucket's TAT
 * is), its balance lines (one per shard, each on a cache line of its own), and on their own line the next sequence
 * number, the refill in flight and the cluster's empty-until mark. The
 * one owner of these words; the header, the generation and the lock-free write protocol are {@link Entry}'s.
 * Checks and fetchers write these words without a lock, so every {@code cas...} here follows that protocol: load
 * the word ({@code ...Volatile}), pass {@link Entry#isCurrentAcquire}, then compare-and-set against the word
 * loaded; it returns true when the word was {@code expected} and is now {@code next}.
 *
 * <p>A final class of static methods over the entry, as {@link BucketWords} is and for the same reason. Stateless.
 */
public final class LeaseWords
{
    private LeaseWords()
    {
    }

    /**
     * @return the tokens leased and not yet spent: the central balance and every balance line, each loaded
     * volatile, one after another (not one snapshot of them all: a token a spend moves between two of them may be
     * missed or counted twice by a concurrent sum, never by a spend).
     */
    public static long balanceVolatile(final Entry entry)
    {
        long sum = centralVolatile(entry);
        for (int line = 0, n = lineCount(entry); line < n; line++)
        {
            sum += lineVolatile(entry, line);
        }
        return sum;
    }

    /** @return the central balance, where grants land, volatile. */
    public static long centralVolatile(final Entry entry)
    {
        return entry.value.getLongVolatile(STATE_OFFSET);
    }

    /** Moves the central balance: see the class comment. */
    public static boolean casCentral(final Entry entry, final long expected, final long next)
    {
        return entry.value.compareAndSetLong(STATE_OFFSET, expected, next);
    }

    /** @return the entry's balance lines: the file's shard count, or 0 for a lease written before there were any. */
    public static int lineCount(final Entry entry)
    {
        return (entry.value.capacity() - LEASE_LINES_OFFSET) / SHARD_STRIDE;
    }

    /** @return balance line {@code line}, volatile. */
    public static long lineVolatile(final Entry entry, final int line)
    {
        return entry.value.getLongVolatile(LEASE_LINES_OFFSET + line * SHARD_STRIDE);
    }

    /** Moves balance line {@code line}: see the class comment. */
    public static boolean casLine(final Entry entry, final int line, final long expected, final long next)
    {
        return entry.value.compareAndSetLong(LEASE_LINES_OFFSET + line * SHARD_STRIDE, expected, next);
    }

    /** @return the sequence number the node's next lease request for this bucket uses, volatile. */
    public static long sequenceVolatile(final Entry entry)
    {
        return entry.value.getLongVolatile(LEASE_SEQUENCE_OFFSET);
    }

    /** Moves the sequence number: see the class comment. */
    public static boolean casSequence(final Entry entry, final long expected, final long next)
    {
        return entry.value.compareAndSetLong(LEASE_SEQUENCE_OFFSET, expected, next);
    }

    /** @return the refill-in-flight word, {@code since ms << 24 | pid}, 0 when none; volatile. */
    public static long refillVolatile(final Entry entry)
    {
        return entry.value.getLongVolatile(LEASE_REFILL_OFFSET);
    }

    /** Moves the refill word: see the class comment. */
    public static boolean casRefill(final Entry entry, final long expected, final long next)
    {
        return entry.value.compareAndSetLong(LEASE_REFILL_OFFSET, expected, next);
    }

    /** @return the monotonic ms before which the cluster's bucket is known too empty to ask, volatile. */
    public static long emptyUntilVolatile(final Entry entry)
    {
        return entry.value.getLongVolatile(LEASE_EMPTY_UNTIL_OFFSET);
    }

    /** Moves the empty-until word: see the class comment. */
    public static boolean casEmptyUntil(final Entry entry, final long expected, final long next)
    {
        return entry.value.compareAndSetLong(LEASE_EMPTY_UNTIL_OFFSET, expected, next);
    }

    /**
     * The lease's part of {@link Entry#stateSumVolatile}. Writes that cancel exactly (a spend and a grant) can
     * hide a late write: the janitor then drops a balance, which under-admits by at most that balance and never
     * over-admits.
     */
    static long stateSumVolatile(final Entry entry)
    {
        return balanceVolatile(entry) + sequenceVolatile(entry) + refillVolatile(entry);
    }
}
