package dev.floodgate.store;

import dev.floodgate.Action;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.hash.impl.BigSegmentHeader;
import net.openhft.chronicle.hash.impl.CompactOffHeapLinearHashTable;
import net.openhft.chronicle.hash.impl.HashSplitting;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The lock-free half of a check's cold path: finds an entry that already exists, live and in the units the
 * caller needs, without a guard or a Chronicle lock, so that a second JVM meeting a key the first one inserted
 * reads it as cheaply as the first JVM's own cache miss instead of queueing for the segment. Anything else
 * (absent, tombstoned, in a chained tier, a bucket being converted or in older units, a slot that moved under
 * the walk) answers null, and the caller takes the locked path ({@link EntryResolver}), which inserts, revives
 * and converts.
 *
 * <p>It searches a segment's first tier the way Chronicle Map 2026.1's own queries do under a read lock
 * ({@code HashLookupSearch.nextPos}, {@code KeySearch}): the key's xxHash (r39) picks the segment and the search
 * key, the hash lookup is probed linearly with volatile slot loads, and a slot whose key bits match points at a
 * chunk whose first 16 bytes are the key (constant size, no size prefix), followed by the value's stop-bit
 * size and the value at the next 64-byte boundary. Unlike a read-locked query it also races removals (a
 * backward-shift deletion may move a slot past the probe: a miss, so the locked path) and the reuse of a
 * removed entry's chunks, which is why a candidate is accepted only through this sequence of loads:
 * <ol>
 * <li>the slot (volatile), then the value's generation (volatile): live, not {@link Entry#TOMBSTONE}. Every
 * removal reaps a tombstone (the janitor is the only remover, and resets tombstone), so memory of a removed
 * entry that nobody reused still reads as a tombstone;</li>
 * <li>then the key bytes, the kind, the action and the value size: a chunk reused by another key's insert has
 * that key's bytes, which Chronicle writes before the value (so a new occupant's generation is never seen
 * without its key);</li>
 * <li>then the slot again, unchanged: a slot seen again was written after its entry's copy, even when the same
 * key was reinserted into the same chunk meanwhile;</li>
 * <li>then, for a bucket, the TAT word before the units: a word frozen by a conversion is left to the locked
 * path, and a word not frozen under the generation read means the conversion that published that generation
 * ({@code BucketConversion}: freeze, new generation, units, converted word, version) has stored its units
 * already. Reading the units first let a conversion slip between the two (found by review; a race test keeps
 * it);</li>
 * <li>then the units (limit, window, version): a bucket in older units than the caller's is left to the locked
 * path, which converts it;</li>
 * <li>then the generation again, unchanged: the entry was neither converted nor removed during the reads.</li>
 * </ol>
 * So whoever holds a generation holds the units its word is in.
 * A generation read live cannot be reaped before a grace period has passed after its tombstone (see
 * {@code Janitor}), so from here the caller uses the entry under the same rule as one resolved under the lock.
 *
 * <p>Thread-safe; allocates only the result.
 */
final class EntryFinder
{
    static final int MAX_STOP_BIT_BYTES = 5;
    private static final int VALUE_ALIGNMENT = 64;

    private final VanillaChronicleHash<?, ?, ?, ?> map;
    private final CompactOffHeapLinearHashTable hashLookup;
    private final HashSplitting splitting;
    private final long slots;
    private final long entrySpaceOffset;
    private final long chunkSize;
    private final long chunksPerTier;
    private final int shards;

    EntryFinder(final VanillaChronicleHash<?, ?, ?, ?> map, final int shards)
    {
        this.map = map;
        this.hashLookup = map.hashLookup;
        this.splitting = map.hashSplitting;
        this.slots = map.tierHashLookupCapacity;
        this.entrySpaceOffset = map.tierHashLookupOuterSize + VanillaChronicleHash.TIER_COUNTERS_AREA_SIZE +
            map.tierFreeListOuterSize + map.tierEntrySpaceInnerOffset;
        this.chunkSize = map.chunkSize;
        this.chunksPerTier = map.actualChunksPerSegmentTier;
        this.shards = shards;
    }

    /**
     * @param key         the entry's key ({@link KeyHasher#KEY_LENGTH} bytes).
     * @param kind        the entry kind.
     * @param action      the action.
     * @param unitsVersion for a bucket, the policy version its units must have reached; otherwise ignored.
     * @return the live entry, or null when the locked path must decide.
     */
    Resolved find(final byte[] key, final byte kind, final Action action, final long unitsVersion)
    {
        final long hash = LongHashFunction.xx_r39().hashBytes(key);
        final int segment = splitting.segmentIndex(hash);
        final long searchKey = hashLookup.maskUnsetKey(splitting.segmentHash(hash));
        final long tier = map.segmentBaseAddr(segment);
        final UnsafeBuffer keyBytes = new UnsafeBuffer(key);
        final long key0 = keyBytes.getLong(0);
        final long key1 = keyBytes.getLong(8);
        final int length = EntryLayout.valueLength(kind, shards);
        long pos = hashLookup.hlPos(searchKey);
        for (long probes = 0; probes < slots; probes++)
        {
            final long slot = hashLookup.readEntryVolatile(tier, pos);
            if (hashLookup.empty(slot))
            {
                break;
            }
            if (hashLookup.key(slot) == searchKey)
            {
                final Resolved found = verify(tier, pos, slot, key0, key1, kind, action, length, unitsVersion);
                if (found != null)
                {
                    return found;
                }
            }
            pos = hashLookup.step(pos);
        }
        return null; // absent from the first tier, or moved under the probe; chained tiers are the lock's job
    }

    private Resolved verify(final long tier, final long pos, final long slot, final long key0, final long key1,
        final byte kind, final Action action, final int length, final long unitsVersion)
    {
        final long chunk = hashLookup.value(slot);
        if (chunk >= chunksPerTier)
        {
            return null;
        }
        final long entryAddress = tier + entrySpaceOffset + chunk * chunkSize;
        final int valueOffset = (int)(((entryAddress + KeyHasher.KEY_LENGTH + stopBitBytes(length) +
            VALUE_ALIGNMENT - 1) & -VALUE_ALIGNMENT) - entryAddress); // Chronicle aligns the value's address
        if ((chunksPerTier - chunk) * chunkSize < valueOffset + length)
        {
            return null;
        }
        final UnsafeBuffer entry = new UnsafeBuffer(entryAddress, valueOffset + length);
        // a lease written before balance lines is shorter; its size's stop bits are as many (checked), so its
        // value starts where this length's would
        final long size = stopBitSize(entry, KeyHasher.KEY_LENGTH);
        if (size != length && !(kind == Entry.KIND_LEASE && size == EntryLayout.LEASE_BASE_LENGTH &&
            stopBitBytes(size) == stopBitBytes(length)))
        {
            return null;
        }
        final Entry value = new Entry(new UnsafeBuffer(entry.addressOffset() + valueOffset, (int)size));
        final long generation = value.generationVolatile();
        if (generation == Entry.TOMBSTONE || entry.getLong(0) != key0 || entry.getLong(8) != key1 ||
            value.kind() != kind || value.actionOrdinal() != action.ordinal())
        {
            return null;
        }
        // the slot again: a slot seen again was written after its entry's copy (Chronicle publishes the slot last)
        if (hashLookup.readEntryVolatile(tier, pos) != slot)
        {
            return null;
        }
        // the word before the units: seeing this generation, a word not frozen means the conversion that
        // published it has stored its converted word, and so its units, before (see BucketConversion's order)
        if (kind == Entry.KIND_BUCKET && BucketWords.isFrozenVolatile(value))
        {
            return null;
        }
        final long limit = value.limitVolatile();
        final long windowMs = value.windowMsVolatile();
        final long version = value.unitsVersionVolatile() & 0xFFFF_FFFFL;
        if (kind == Entry.KIND_BUCKET && version < unitsVersion || value.generationVolatile() != generation)
        {
            return null;
        }
        return new Resolved(value, generation, limit, windowMs, version);
    }

    /** @return the stop-bit encoded size at {@code offset}, or -1 when it does not end within its bytes. */
    static long stopBitSize(final UnsafeBuffer buffer, final int offset)
    {
        long size = 0;
        for (int i = 0; i < MAX_STOP_BIT_BYTES; i++)
        {
            final int b = buffer.getByte(offset + i);
            size |= (long)(b & 0x7F) << (7 * i);
            if ((b & 0x80) == 0)
            {
                return size;
            }
        }
        return -1;
    }

    static int stopBitBytes(final long size)
    {
        int bytes = 1;
        for (long rest = size >>> 7; rest != 0; rest >>>= 7)
        {
            bytes++;
        }
        return bytes;
    }

    /**
     * Finds the file's record without a guard or a Chronicle lock. The record is inserted first into an empty table,
     * so into its segment's first tier, and is never removed, moved or resized, so its bytes stay where they are; only
     * its hash-lookup slot may move under a removal of another key of the segment, which at worst makes this miss.
     * So an open is not held up by a process stopped inside any operation on the record's segment (found by review:
     * every open failed after 2 s).
     *
     * @param key       the record's key.
     * @param minLength the shortest value that can be a record.
     * @return the record's value, or null when not found this way (the caller then looks under the guard).
     */
    UnsafeBuffer findRecord(final byte[] key, final int minLength)
    {
        final long hash = LongHashFunction.xx_r39().hashBytes(key);
        final long searchKey = hashLookup.maskUnsetKey(splitting.segmentHash(hash));
        final long tier = map.segmentBaseAddr(splitting.segmentIndex(hash));
        final UnsafeBuffer keyBytes = new UnsafeBuffer(key);
        long pos = hashLookup.hlPos(searchKey);
        for (long probes = 0; probes < slots; probes++)
        {
            final long slot = hashLookup.readEntryVolatile(tier, pos);
            if (hashLookup.empty(slot))
            {
                return null;
            }
            final long chunk = hashLookup.value(slot);
            if (hashLookup.key(slot) == searchKey && chunk < chunksPerTier)
            {
                final long entryAddress = tier + entrySpaceOffset + chunk * chunkSize;
                final long room = (chunksPerTier - chunk) * chunkSize;
                final UnsafeBuffer entry = new UnsafeBuffer(entryAddress, (int)Math.min(room, Integer.MAX_VALUE));
                final long size = entry.capacity() >= KeyHasher.KEY_LENGTH + MAX_STOP_BIT_BYTES ?
                    stopBitSize(entry, KeyHasher.KEY_LENGTH) : -1;
                if (size >= minLength && entry.getLong(0) == keyBytes.getLong(0) &&
                    entry.getLong(8) == keyBytes.getLong(8))
                {
                    final long valueOffset = ((entryAddress + KeyHasher.KEY_LENGTH + stopBitBytes(size) +
                        VALUE_ALIGNMENT - 1) & -VALUE_ALIGNMENT) - entryAddress;
                    if (valueOffset + size <= room)
                    {
                        return new UnsafeBuffer(entryAddress + valueOffset, (int)size);
                    }
                }
            }
            pos = hashLookup.step(pos);
        }
        return null;
    }

    /** @return whether {@code segment} has chained tiers, where this finder does not look. For tests. */
    boolean chained(final int segment)
    {
        return BigSegmentHeader.INSTANCE.nextTierIndex(map.segmentHeaderAddress(segment)) != 0;
    }
}
