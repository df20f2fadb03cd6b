package dev.floodgate.reader;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.KeyHasher;
import dev.floodgate.store.LeaseWords;
import dev.floodgate.store.ShardWords;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A copy of one quota entry as a {@link FloodgateReader} read it. Each word was read atomically, but the
 * words of one entry were read one after another while checks may have been writing them.
 *
 * @param kind             the entry's kind.
 * @param action           the action.
 * @param label            the identifier's first bytes as stored (UTF-8, a lone surrogate kept as its own three
 *                         bytes), as text: attacker-chosen, escape before printing.
 * @param identifierLength the identifier's length in chars; longer than the label when it was cut.
 * @param generation       unique per insertion (and per bucket unit conversion); meaningless when tombstoned.
 * @param tombstoned       true while the janitor ages the entry out (after a reset or idleness).
 * @param limit            bucket: the limit of its TAT word's units; window: the limit it was created under.
 * @param windowMs         likewise, the window.
 * @param unitsVersion     the policy version a bucket's units belong to.
 * @param createdNanos     creation, monotonic ns.
 * @param touchedNanos     last refusal (or creation), monotonic ns.
 * @param stateWord        a bucket's TAT word (while a conversion holds it frozen, the word its side record
 *                         keeps, and {@code limit} and {@code windowMs} that record's units: what the next check
 *                         puts back before it converts); a lease's balance (tokens leased, not yet spent); 0 for
 *                         other kinds.
 * @param shardWords       a window's shard words, or a blocked counter's stripes; empty for buckets.
 * @param shardNewest      a window's shards' newest window numbers, each read after its word (the word's
 *                         window number reads against it); empty for other kinds.
 * @param leaseSequence    a lease's next sequence number (the node's next request for the bucket); 0 for other
 *                         kinds.
 */
public record TableEntry(
    EntryKind kind,
    Action action,
    String label,
    int identifierLength,
    long generation,
    boolean tombstoned,
    long limit,
    long windowMs,
    long unitsVersion,
    long createdNanos,
    long touchedNanos,
    long stateWord,
    long[] shardWords,
    long[] shardNewest,
    long leaseSequence)
{
    /** @return true when the stored label is a prefix of a longer identifier. */
    public boolean labelCut()
    {
        return identifierLength > label.length();
    }

    /** @return a lease's balance: tokens leased from the cluster and not yet spent; 0 for other kinds. */
    public long leaseBalance()
    {
        return kind == EntryKind.LEASE ? stateWord : 0;
    }

    /** @return a blocked counter's refusals (the sum of its stripes); 0 for other kinds. */
    public long blocked()
    {
        if (kind != EntryKind.BLOCKED)
        {
            return 0;
        }
        long sum = 0;
        for (final long stripe : shardWords)
        {
            sum += stripe;
        }
        return sum;
    }

    /** What {@link #decode} returns for an entry it cannot read: counted, never listed. */
    static final TableEntry UNREADABLE = new TableEntry(EntryKind.BUCKET, Action.values()[0], "", 0, 0, false, 0, 0,
        0, 0, 0, 0, new long[0], new long[0], 0);

    /** What {@link #kindOf} answers for the file's own record (the all-zero key): no quota entry. */
    static final int FILE_RECORD = 0;

    /** What {@link #kindOf} answers for a value damaged: a kind, action or length no entry has. */
    static final int DAMAGED = -1;

    private static final int ACTIONS = Action.values().length;

    /**
     * @param key    an entry's key.
     * @param value  its value in the file.
     * @param shards the file's shard count.
     * @return the entry copied; null for the file's own record (the all-zero key); {@link #UNREADABLE} for a
     * value damaged (a kind, action or length no entry has) or a bucket converted again and again under the read.
     */
    static TableEntry decode(final byte[] key, final UnsafeBuffer value, final int shards)
    {
        return decode(key, value, shards, new BucketRead());
    }

    /** As {@link #decode(byte[], UnsafeBuffer, int)}, reading a bucket through {@code bucket} (one per walk). */
    static TableEntry decode(final byte[] key, final UnsafeBuffer value, final int shards, final BucketRead bucket)
    {
        final Entry entry = new Entry(value);
        final int code = kindOf(key, entry, shards);
        if (code == FILE_RECORD)
        {
            return null;
        }
        if (code == DAMAGED)
        {
            return UNREADABLE;
        }
        return code == Entry.KIND_BUCKET ? bucket(entry, bucket) :
            other(entry, (byte)code, entry.actionOrdinal(), shards);
    }

    /**
     * The tests every decode of an entry makes before it reads its words ({@link #decode}'s and {@link EntryTally}'s).
     *
     * @param key    an entry's key.
     * @param entry  over its value in the file.
     * @param shards the file's shard count.
     * @return the entry's kind byte; {@link #FILE_RECORD} for the file's own record; {@link #DAMAGED} for a value
     * whose kind, action or length no entry has.
     */
    static int kindOf(final byte[] key, final Entry entry, final int shards)
    {
        final byte code = key[KeyHasher.KIND_INDEX];
        if (code == 0 && isZero(key))
        {
            return FILE_RECORD;
        }
        if (code < Entry.KIND_BUCKET || code > Entry.KIND_LEASE ||
            !EntryLayout.isValueLength(code, shards, entry.length()) || entry.kind() != code)
        {
            return DAMAGED;
        }
        final int ordinal = entry.actionOrdinal();
        return ordinal < 0 || ordinal >= ACTIONS ? DAMAGED : code;
    }

    private static boolean isZero(final byte[] key)
    {
        for (final byte b : key)
        {
            if (b != 0)
            {
                return false;
            }
        }
        return true;
    }

    /** A bucket, read as {@link BucketRead} says; {@link #UNREADABLE} when a conversion froze it under every read. */
    private static TableEntry bucket(final Entry entry, final BucketRead read)
    {
        if (!read.read(entry))
        {
            return UNREADABLE;
        }
        return new TableEntry(EntryKind.BUCKET, entry.action(), entry.label(), entry.identifierLength(),
            read.generation, read.generation == Entry.TOMBSTONE, read.limit, read.windowMs,
            read.version & 0xFFFF_FFFFL, entry.createdNanos(), entry.touchedVolatile(), read.tat, new long[0],
            new long[0], 0);
    }

    private static TableEntry other(final Entry entry, final byte code, final int ordinal, final int shards)
    {
        final long generation = entry.generationVolatile();
        final boolean lease = code == Entry.KIND_LEASE;
        final long[] words = new long[lease ? 0 : shards];
        final long[] newest = new long[code == Entry.KIND_WINDOW ? shards : 0];
        for (int shard = 0; shard < words.length; shard++)
        {
            words[shard] = ShardWords.wordVolatile(entry, shard);
            if (newest.length > 0)
            {
                newest[shard] = ShardWords.newestVolatile(entry, shard);
            }
        }
        return new TableEntry(EntryKind.values()[code - Entry.KIND_BUCKET], Action.fromOrdinal(ordinal),
            entry.label(), entry.identifierLength(), generation, generation == Entry.TOMBSTONE,
            entry.limitVolatile(), entry.windowMsVolatile(), entry.unitsVersionVolatile() & 0xFFFF_FFFFL,
            entry.createdNanos(), entry.touchedVolatile(),
            lease ? LeaseWords.balanceVolatile(entry) : 0,
            words, newest, lease ? LeaseWords.sequenceVolatile(entry) : 0);
    }
}
