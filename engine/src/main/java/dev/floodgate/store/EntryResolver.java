package dev.floodgate.store;

import dev.floodgate.Action;
import dev.floodgate.TableBusyException;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The cold path of a check: find an entry under its segment's guard and update lock, inserting it when absent
 * (under the allocation guard too when Chronicle may add a tier) and reviving it when tombstoned, and read its
 * generation and units together. {@link EntryLookup#resolve} counts the operation in and delegates here.
 * Thread-safe.
 */
final class EntryResolver
{
    private final Path file;
    private final Object inode;
    private final ChronicleMap<byte[], byte[]> map;
    private final TableGuard guard;
    private final GuardRegion region;
    private final FileHeader header;
    private final long capacity;
    private final int shards;
    private final ThreadLocal<UnsafeBuffer> scratch = ThreadLocal.withInitial(() -> new UnsafeBuffer(0, 0));
    private final ThreadLocal<Entry> scratchEntry = ThreadLocal.withInitial(Entry::new);

    EntryResolver(final Path file, final Object inode, final ChronicleMap<byte[], byte[]> map, final TableGuard guard,
        final FileHeader header, final long capacity, final int shards)
    {
        this.file = file;
        this.inode = inode;
        this.map = map;
        this.guard = guard;
        this.region = guard.region();
        this.header = header;
        this.capacity = capacity;
        this.shards = shards;
    }

    /** See {@link EntryLookup#resolve}; the caller has counted the operation in. */
    Resolved resolve(final byte[] key, final byte kind, final Action action,
        final CharSequence identifier, final long limit, final long windowMs, final long version,
        final long initialState, final long nowNanos, final EntryUpgrade upgrade) throws TableFullException
    {
        final byte[] fresh = EntryLayout.newValue(kind, action, limit, windowMs, nowNanos, header.nextGeneration(),
            version, initialState, identifier, shards);
        final UnsafeBuffer buffer = scratch.get();
        int outcome = 0; // 1: segment busy, 2: allocation busy, 3: full by count, 4: full by tiers
        int segment = -1;
        long generation = 0;
        long entryLimit = 0;
        long entryWindowMs = 0;
        long entryVersion = 0;
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key))
        {
            final int s = EntryLocks.segmentOf(c);
            if (!guard.acquireSegment(s, QuotaTable.CHECK_TIMEOUT_NANOS))
            {
                outcome = 1;
            }
            else
            {
                segment = s;
                EntryLocks.lock(file, c.updateLock());
                MapEntry<byte[], byte[]> entry = c.entry();
                if (entry == null)
                {
                    outcome = insert(c, s, fresh);
                    entry = outcome == 0 ? c.entry() : null;
                }
                if (entry != null)
                {
                    final Entry located = scratchEntry.get().wrap(EntryLocks.wrap(entry.value(), buffer));
                    if (located.isTombstonedVolatile())
                    {
                        located.publishGenerationRelease(header.nextGeneration());
                        header.addCounter(FileHeader.REVIVED_OFFSET, 1);
                    }
                    if (upgrade != null)
                    {
                        upgrade.apply(located, header);
                    }
                    // read together under the lock: a conversion changes generation and units together
                    generation = located.generationVolatile();
                    entryLimit = located.limit();
                    entryWindowMs = located.windowMs();
                    entryVersion = located.unitsVersion();
                }
            }
        }
        finally
        {
            if (segment >= 0)
            {
                guard.releaseSegment(segment); // after the context closed: its Chronicle lock is released first
            }
        }
        switch (outcome)
        {
            case 1:
                throw new TableBusyException(file + ": a live process held its segment's guard for " +
                    TimeUnit.NANOSECONDS.toMillis(QuotaTable.CHECK_TIMEOUT_NANOS) + " ms");
            case 2:
                throw new TableBusyException(file + ": a live process held the allocation guard for " +
                    TimeUnit.NANOSECONDS.toMillis(QuotaTable.CHECK_TIMEOUT_NANOS) + " ms");
            case 3:
                throw new TableFullException(file + " holds " + capacity + " entries");
            case 4:
                throw new TableFullException(file + ": its segment has no room left and no tier can be added");
            default:
                return new Resolved(new Entry(new UnsafeBuffer(buffer.addressOffset(), buffer.capacity())), generation,
                    entryLimit, entryWindowMs, entryVersion);
        }
    }

    /** Inserts under the segment's guard and update lock; the allocation guard covers a tier Chronicle may add. */
    private int insert(final ExternalMapQueryContext<byte[], byte[], ?> c, final int segment, final byte[] fresh)
    {
        if (header.counterVolatile(FileHeader.ENTRY_COUNT_OFFSET) >= capacity)
        {
            return 3;
        }
        // the allocation guard only when Chronicle may take its tier lock: most inserts hold up one segment only
        final boolean allocating = !TierSpace.firstTierFits((VanillaChronicleHash<?, ?, ?, ?>)map, segment, fresh.length);
        if (allocating && !guard.acquireAllocation(QuotaTable.CHECK_TIMEOUT_NANOS))
        {
            return 2;
        }
        try
        {
            if (allocating && !TierSpace.tailBacked((VanillaChronicleHash<?, ?, ?, ?>)map, file, inode))
            {
                return 4;
            }
            c.absentEntry().doInsert(c.wrapValueAsData(fresh));
        }
        catch (final IllegalStateException ex)
        {
            return 4; // Chronicle ran out of segment tiers before the entry count reached capacity
        }
        catch (final RuntimeException ex)
        {
            if (ex.getCause() instanceof IOException)
            {
                return 4; // the file could not grow by a tier (a full file system): as full, not thrown at the check
            }
            throw ex;
        }
        finally
        {
            if (allocating)
            {
                guard.releaseAllocation();
            }
        }
        region.addSegmentEntries(segment, 1);
        header.addCounter(FileHeader.ENTRY_COUNT_OFFSET, 1);
        return 0;
    }
}
