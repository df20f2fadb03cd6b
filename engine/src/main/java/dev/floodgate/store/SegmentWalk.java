package dev.floodgate.store;

import net.openhft.chronicle.hash.impl.BigSegmentHeader;
import net.openhft.chronicle.hash.impl.CompactOffHeapLinearHashTable;
import net.openhft.chronicle.hash.impl.TierCountersArea;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import org.agrona.concurrent.UnsafeBuffer;

import java.lang.invoke.VarHandle;

/**
 * One segment's entries read from Chronicle Map 2026.1's layout directly, in two steps: a census under the segment's
 * guard, which is short (a load per hash-lookup slot and one per entry), and a walk of verified copies with no guard
 * at all, so that a scan holds up a segment's cold checks for its census only, not for its visitor.
 *
 * <p>The layout is the one {@link EntryFinder} reads (its Javadoc): per tier a hash lookup of
 * {@code tierHashLookupCapacity} slots, each 0 or key bits and a chunk index, the tier's counters, its free list, then
 * the entry space, where an entry is its 16 key bytes, the value's stop-bit size and the value at the next 64-byte
 * boundary. A segment's first tier counts its entries in the segment header, chained ones in their counters area, and
 * each names the next tier (1-based index, 0 for none), as Chronicle's {@code SegmentStages} reads them.
 *
 * <p>The census ({@link #census}) does what Chronicle's own iteration ({@code HashSegmentIteration}) checks at the end
 * of each tier: a tier whose counter says more entries than its hash lookup holds has diverged (a process died inside
 * an insert, which bumps the counter before it writes the slot, or inside a removal, which clears the slot before it
 * drops the counter). A counter behind its hash lookup is no divergence to Chronicle, whose iteration stops
 * once it has visited as many entries as the counter says; the census counts every occupied slot, what a lookup can
 * reach. It counts the quota entries (the file's record, kind 0, is not one) for the scan's recount
 * ({@link SegmentCounts}), and records the tiers' addresses, resolved under the guard as Chronicle's iteration resolved
 * them ({@code tierIndexToBaseAddr} maps a chained tier's bulk into this process on first use), so the unguarded walk
 * calls into Chronicle not at all.
 *
 * <p>The walk ({@link #visitCopies}) races inserts, removals and checks, as {@link EntryFinder} does, and hands the
 * visitor a copy only when the copy is known whole: the slot (volatile), then the value's generation (volatile), then
 * the key and value copied, then the slot and the generation again, both unchanged. Generations are never reused and
 * only a tombstone is ever removed, so a live generation seen twice means the bytes between belong to that one
 * incarnation of that key (its words moved meanwhile only by checks, which the guarded scan did not exclude either).
 * A tombstone seen twice may be another tombstone's memory: a caller must decide about tombstones again under the
 * entry's lock (the janitor does so for every decision). A backward-shift deletion may move a slot past the walk,
 * so an entry may be missed, or seen twice, in one walk.
 *
 * <p>Not thread-safe: one per scan (its buffers are reused for each entry). Allocates nothing after construction.
 */
final class SegmentWalk
{
    /** Tiers per segment the walk visits; a segment chained longer has the rest counted, not visited. */
    static final int MAX_TIERS = 64;
    private static final int VALUE_ALIGNMENT = 64;

    private final VanillaChronicleHash<?, ?, ?, ?> map;
    private final CompactOffHeapLinearHashTable hashLookup;
    private final int shards;
    private final long slots;
    private final long entrySpaceOffset;
    private final long chunkSize;
    private final long chunksPerTier;
    private final long[] tiers = new long[MAX_TIERS];
    private final UnsafeBuffer inFile = new UnsafeBuffer(0, 0);
    private final UnsafeBuffer key = new UnsafeBuffer(new byte[KeyHasher.KEY_LENGTH]);
    private final byte[][] values = new byte[Entry.KIND_LEASE + 1][];
    private final UnsafeBuffer value = new UnsafeBuffer(0, 0);
    private final Entry copy = new Entry(value);
    private int tierCount;
    private long quotaEntries;
    private long repairedFrom;
    private long repairedTo;

    SegmentWalk(final VanillaChronicleHash<?, ?, ?, ?> map, final int shards)
    {
        this.map = map;
        this.hashLookup = map.hashLookup;
        this.shards = shards;
        this.slots = map.tierHashLookupCapacity;
        this.entrySpaceOffset = map.tierHashLookupOuterSize + VanillaChronicleHash.TIER_COUNTERS_AREA_SIZE +
            map.tierFreeListOuterSize + map.tierEntrySpaceInnerOffset;
        this.chunkSize = map.chunkSize;
        this.chunksPerTier = map.actualChunksPerSegmentTier;
        for (byte kind = Entry.KIND_BUCKET; kind <= Entry.KIND_LEASE; kind++)
        {
            values[kind] = new byte[EntryLayout.valueLength(kind, shards)];
        }
    }

    /** What {@link #census} found. */
    enum Census
    {
        /** Every tier's counter matches its hash lookup. */
        EXACT,
        /** A single-tier segment's counter was ahead, and was set to what its hash lookup holds. */
        REPAIRED,
        /**
         * A chained segment's counter was ahead: beyond an online repair (only that tier and the tiers after it are
         * walked).
         */
        DIVERGED
    }

    /**
     * Counts the segment's entries and records its tiers for {@link #visitCopies}; call under the segment's guard. Sets
     * the first tier's counter when it was ahead of its hash lookup and the segment has one tier (as Chronicle's
     * iteration found it: {@link SegmentCounts} logs and counts), and leaves a chained one as it is, recording only
     * the last diverged tier and the tiers after it (those Chronicle's iteration, last tier first, visited before it
     * threw: it throws at the end of the diverged tier, having visited all of it).
     *
     * @param segment a segment whose guard this thread holds.
     * @return what it found; {@link #quotaEntries()} is meaningful unless {@link Census#DIVERGED}.
     */
    Census census(final int segment)
    {
        final long header = map.segmentHeaderAddress(segment);
        final BigSegmentHeader h = BigSegmentHeader.INSTANCE;
        final boolean chained = h.nextTierIndex(header) != 0;
        Census found = Census.EXACT;
        quotaEntries = 0;
        tierCount = 0;
        long tier = map.segmentBaseAddr(segment);
        long counter = h.entries(header);
        long next = h.nextTierIndex(header);
        while (true)
        {
            if (tierCount < MAX_TIERS)
            {
                tiers[tierCount++] = tier;
            }
            final long occupied = countTier(tier);
            if (occupied < counter)
            {
                if (chained)
                {
                    // as Chronicle's iteration, which goes from the last tier back and stops at the end of the first
                    // diverged one it meets, having visited all of it: that tier and the ones after it are walked
                    // (dropping the diverged tier too left its entries to no janitor until an offline recovery, where
                    // the scan in place had judged them; found by review, UnguardedScanTest)
                    found = Census.DIVERGED;
                    tiers[0] = tier;
                    tierCount = 1;
                }
                else
                {
                    repairedFrom = counter;
                    repairedTo = occupied;
                    h.entries(header, occupied);
                    found = Census.REPAIRED;
                }
            }
            if (next == 0)
            {
                return found;
            }
            tier = map.tierIndexToBaseAddr(next);
            final long counters = tier + map.tierHashLookupOuterSize;
            counter = TierCountersArea.entries(counters);
            next = TierCountersArea.nextTierIndex(counters);
        }
    }

    /** @return the quota entries (not the file's record) the last {@link #census} counted. */
    long quotaEntries()
    {
        return quotaEntries;
    }

    /** @return the first tier's counter before the last {@link #census} set it ({@link Census#REPAIRED}). */
    long repairedFrom()
    {
        return repairedFrom;
    }

    /** @return the entries the first tier's hash lookup held, which the last repair set its counter to. */
    long repairedTo()
    {
        return repairedTo;
    }

    private long countTier(final long tier)
    {
        long occupied = 0;
        long pos = 0;
        for (long i = 0; i < slots; i++, pos = hashLookup.step(pos))
        {
            final long slot = hashLookup.readEntry(tier, pos);
            if (!hashLookup.empty(slot))
            {
                occupied++;
                final long chunk = hashLookup.value(slot);
                if (chunk < chunksPerTier && kindAt(tier, chunk) != 0)
                {
                    quotaEntries++;
                }
            }
        }
        return occupied;
    }

    private byte kindAt(final long tier, final long chunk)
    {
        inFile.wrap(tier + entrySpaceOffset + chunk * chunkSize, KeyHasher.KEY_LENGTH);
        return inFile.getByte(KeyHasher.KIND_INDEX);
    }

    /**
     * Visits a verified copy of each quota entry of the tiers the last {@link #census} recorded; call with no guard
     * held, after a census of the same segment.
     *
     * @param visitor receives each copy; the buffers are reused for the next entry.
     */
    void visitCopies(final SnapshotVisitor visitor)
    {
        for (int t = 0; t < tierCount; t++)
        {
            final long tier = tiers[t];
            long pos = 0;
            for (long i = 0; i < slots; i++, pos = hashLookup.step(pos))
            {
                final long slot = hashLookup.readEntryVolatile(tier, pos);
                if (!hashLookup.empty(slot) && copied(tier, pos, slot))
                {
                    visitor.visit(key, copy);
                }
            }
        }
    }

    /** @return whether the entry {@code slot} names was copied whole into {@link #key} and {@link #value}. */
    private boolean copied(final long tier, final long pos, final long slot)
    {
        final long chunk = hashLookup.value(slot);
        if (chunk >= chunksPerTier)
        {
            return false;
        }
        final long entryAddress = tier + entrySpaceOffset + chunk * chunkSize;
        final byte kind = kindAt(tier, chunk);
        if (kind < Entry.KIND_BUCKET || kind > Entry.KIND_LEASE)
        {
            return false; // the file's record, or memory being written
        }
        final int length = values[kind].length;
        final long room = (chunksPerTier - chunk) * chunkSize;
        if (room < KeyHasher.KEY_LENGTH + EntryFinder.MAX_STOP_BIT_BYTES)
        {
            return false;
        }
        inFile.wrap(entryAddress, KeyHasher.KEY_LENGTH + EntryFinder.MAX_STOP_BIT_BYTES);
        final long size = EntryFinder.stopBitSize(inFile, KeyHasher.KEY_LENGTH);
        if (!EntryLayout.isValueLength(kind, shards, size))
        {
            return false;
        }
        final long valueOffset = ((entryAddress + KeyHasher.KEY_LENGTH + EntryFinder.stopBitBytes(size) +
            VALUE_ALIGNMENT - 1) & -VALUE_ALIGNMENT) - entryAddress;
        if (valueOffset + size > room)
        {
            return false;
        }
        inFile.wrap(entryAddress, (int)(valueOffset + size));
        final long generation = inFile.getLongVolatile((int)valueOffset + EntryLayout.GENERATION_OFFSET);
        key.putBytes(0, inFile, 0, KeyHasher.KEY_LENGTH);
        value.wrap(values[kind], 0, (int)size);
        value.putBytes(0, inFile, (int)valueOffset, (int)size);
        VarHandle.loadLoadFence(); // the copy's loads before the second look at the slot and the generation
        return hashLookup.readEntryVolatile(tier, pos) == slot &&
            inFile.getLongVolatile((int)valueOffset + EntryLayout.GENERATION_OFFSET) == generation;
    }
}
