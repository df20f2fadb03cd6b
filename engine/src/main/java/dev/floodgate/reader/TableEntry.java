package dev.floodgate.reader;

import dev.floodgate.Action;
import dev.floodgate.store.BucketWords;
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

    private static final int BUCKET_READS = 3;

    /**
     * @param key    an entry's key.
     * @param value  its value in the file.
     * @param shards the file's shard count.
     * @return the entry copied; null for the file's own record (the all-zero key); {@link #UNREADABLE} for a
     * value damaged (a kind, action or length no entry has) or a bucket converted again and again under the read.
     */
    static TableEntry decode(final byte[] key, final UnsafeBuffer value, final int shards)
    {
        final byte code = key[KeyHasher.KIND_INDEX];
        final Entry entry = new Entry(value);
        if (code == 0 && java.util.Arrays.equals(key, new byte[key.length]))
        {
            return null;
        }
        if (code < Entry.KIND_BUCKET || code > Entry.KIND_LEASE ||
            !EntryLayout.isValueLength(code, shards, entry.length()) || entry.kind() != code)
        {
            return UNREADABLE;
        }
        final int ordinal = entry.actionOrdinal();
        if (ordinal < 0 || ordinal >= Action.values().length)
        {
            return UNREADABLE;
        }
        return code == Entry.KIND_BUCKET ? bucket(entry, ordinal) : other(entry, code, ordinal, shards);
    }

    /**
     * A bucket's word and the units it is in: the units version, then the word before the units (as the lock-free
     * lookup, {@code EntryFinder}, reads word and units), all between two equal loads of the generation. A conversion
     * publishes a new generation before it writes units, and writes them before the converted word, so a word read
     * unfrozen is in the units read after it; a frozen word is replaced by the side record (stored before the
     * freeze; see {@link BucketWords#recordedVolatile}).
     */
    private static TableEntry bucket(final Entry entry, final int ordinal)
    {
        for (int read = 0; read < BUCKET_READS; read++)
        {
            final long generation = entry.generationVolatile();
            // the version before the word, as a probe loads it: loaded after a frozen word, it could be that of the
            // conversion the word was frozen for, finished meanwhile, and then the side record loaded next, still the
            // one before it, passed recordedVolatile's test once the next conversion froze the word again (found in
            // CI: version 2 reported with version 1's limit)
            final int version = entry.unitsVersionVolatile();
            long tat = BucketWords.tatVolatile(entry);
            long limit = entry.limitVolatile();
            long windowMs = entry.windowMsVolatile();
            final BucketWords.Recorded recorded = tat != BucketWords.FROZEN_TAT || generation == Entry.TOMBSTONE ?
                null : BucketWords.recordedVolatile(entry, version);
            if (recorded != null)
            {
                tat = recorded.tat();
                limit = recorded.limit();
                windowMs = recorded.windowMs();
            }
            if ((tat != BucketWords.FROZEN_TAT || generation == Entry.TOMBSTONE) &&
                entry.generationVolatile() == generation)
            {
                return new TableEntry(EntryKind.BUCKET, Action.fromOrdinal(ordinal), entry.label(),
                    entry.identifierLength(), generation, generation == Entry.TOMBSTONE, limit, windowMs,
                    version & 0xFFFF_FFFFL, entry.createdNanos(), entry.touchedVolatile(), tat, new long[0],
                    new long[0], 0);
            }
        }
        return UNREADABLE;
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
