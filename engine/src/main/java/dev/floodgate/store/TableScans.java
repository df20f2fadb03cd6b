package dev.floodgate.store;

import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapSegmentContext;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntSupplier;

/**
 * Whole-table scans for writers (the janitor, resets, tools): one segment at a time, each under that segment's guard
 * for as long as it must be, so a scan holds up only the cold checks of the segment it is in, and the janitor's
 * ({@link #forEachEntryUnguarded}) only for a census of it. Each scan of a segment brings the segment's and the
 * file's entry counts back in line with what the segment holds (a process killed between an insert and its counts
 * leaves them off), by adding the difference, so counts moved by other segments meanwhile are never overwritten; the
 * writers' scans then repair the file's count where a process died between the segment's count and the file's
 * ({@link EntryTotalRepair}). Each scan is counted in and out of the table's {@link Operations}, so a closing table
 * waits for it. Thread-safe.
 */
public final class TableScans
{
    private final Path file;
    private final ChronicleMap<byte[], byte[]> map;
    private final TableGuard guard;
    private final Operations operations;
    private final EntryTotalRepair totalRepair;
    private final SegmentCounts counts;
    private final int shards;

    TableScans(final Path file, final ChronicleMap<byte[], byte[]> map, final TableGuard guard,
        final FileHeader header, final Operations operations)
    {
        this.shards = header.shards();
        this.file = file;
        this.map = map;
        this.guard = guard;
        this.operations = operations;
        this.totalRepair = new EntryTotalRepair(file, guard, header);
        this.counts = new SegmentCounts(file, guard.region(), header);
    }

    /**
     * Visits every quota entry in place, one segment at a time under its guard and Chronicle's update lock (for a
     * visitor that writes in place: tools, tests). Also keeps the segments' and the file's entry counts exact, as
     * {@link #forEachEntryUnguarded} does.
     *
     * @param visitor receives each entry.
     * @return the number of segments skipped.
     */
    public int forEachEntryInPlace(final InPlaceVisitor visitor)
    {
        return scanAndRepair(() -> scanInPlace(visitor));
    }

    /**
     * The janitor's scan: visits a verified copy of every quota entry with no guard held ({@link SegmentWalk}), after
     * a census of its segment under the segment's guard, which is all this scan holds a segment for: a load per slot
     * of its hash lookup and one per entry, where visiting under the guard held the segment's cold checks for every
     * visit (which they waited out, or gave up on after 50 ms, on a loaded host). An entry moved by a removal during
     * the walk may be missed, or visited twice; a visitor decides again under the entry's lock. Allocates nothing per
     * entry.
     *
     * <p>Also keeps the segments' and the file's entry counts exact: a scan that skipped no segment ends with
     * {@link EntryTotalRepair#repairIfDrifted}, which takes every segment's guard at once for a moment when the
     * file's count has stayed apart from the segments' sum (a process died between the two). A segment whose guard a
     * live process holds for {@link QuotaTable#CHECK_TIMEOUT_NANOS} (stopped inside an operation) is skipped: a
     * stopped process holds up what it holds, not the whole scan. Once the table is closing the scan stops at the next
     * segment, and the segments left count as skipped.
     *
     * @param visitor receives each entry's copy.
     * @return the number of segments skipped.
     */
    public int forEachEntryUnguarded(final SnapshotVisitor visitor)
    {
        return scanAndRepair(() -> scanUnguarded(visitor));
    }

    private int scanAndRepair(final IntSupplier scan)
    {
        operations.enter();
        try
        {
            final int skipped = scan.getAsInt();
            if (skipped == 0)
            {
                // with a segment held that long, the repair would hold up every other segment in vain
                totalRepair.repairIfDrifted();
            }
            return skipped;
        }
        finally
        {
            operations.exit();
        }
    }

    /**
     * Visits a copy of every quota entry (not the file's own record), one segment at a time: each segment is
     * copied under its guard, then visited with no guard held (a visitor may call back into the table).
     *
     * @param visitor receives each entry.
     */
    public void forEachEntry(final EntryVisitor visitor)
    {
        operations.enter();
        try
        {
            scanCopies(visitor);
        }
        finally
        {
            operations.exit();
        }
    }

    /** @return entries per segment (the file's record included), each counted under its guard; for tests. */
    public long[] segmentCounts()
    {
        operations.enter();
        try
        {
            return countSegments();
        }
        finally
        {
            operations.exit();
        }
    }

    /** @return the repair of the file's entry count this scanner's in-place scans end with; for tests. */
    EntryTotalRepair totalRepair()
    {
        return totalRepair;
    }

    private int scanInPlace(final InPlaceVisitor visitor)
    {
        int skipped = 0;
        final UnsafeBuffer key = new UnsafeBuffer(0, 0);
        final UnsafeBuffer value = new UnsafeBuffer(0, 0);
        final Entry inPlace = new Entry(value);
        final SegmentWalk walk = new SegmentWalk((VanillaChronicleHash<?, ?, ?, ?>)map, shards);
        final Consumer<MapEntry<byte[], byte[]>> each = entry ->
        {
            final Data<byte[]> k = entry.key();
            key.wrap(k.bytes().addressForRead(k.offset()), KeyHasher.KEY_LENGTH);
            if (key.getByte(KeyHasher.KIND_INDEX) != 0)
            {
                final Data<byte[]> v = entry.value();
                value.wrap(v.bytes().addressForRead(v.offset()), (int)v.size());
                visitor.visit(key, inPlace);
            }
        };
        for (int segment = 0; segment < map.segments(); segment++)
        {
            if (operations.ended())
            {
                // the table is closing and waits for this scan: what is left is skipped (a close waited for the whole
                // scan, 50 ms for each segment a stopped process held, and gave up at its bound on a large table)
                return skipped + map.segments() - segment;
            }
            if (!guard.acquireSegment(segment, QuotaTable.CHECK_TIMEOUT_NANOS))
            {
                skipped++;
                continue;
            }
            try
            {
                counts.censusAndRecount(walk, segment);
                iterate(segment, each);
            }
            finally
            {
                guard.releaseSegment(segment);
            }
        }
        return skipped;
    }

    private int scanUnguarded(final SnapshotVisitor visitor)
    {
        int skipped = 0;
        final SegmentWalk walk = new SegmentWalk((VanillaChronicleHash<?, ?, ?, ?>)map, shards);
        for (int segment = 0; segment < map.segments(); segment++)
        {
            if (operations.ended())
            {
                return skipped + map.segments() - segment; // as scanInPlace
            }
            if (!guard.acquireSegment(segment, QuotaTable.CHECK_TIMEOUT_NANOS))
            {
                skipped++;
                continue;
            }
            try
            {
                counts.censusAndRecount(walk, segment);
            }
            finally
            {
                guard.releaseSegment(segment);
            }
            walk.visitCopies(visitor); // no guard: the segment's cold checks go on meanwhile
        }
        return skipped;
    }

    private void scanCopies(final EntryVisitor visitor)
    {
        final List<byte[]> keys = new ArrayList<>();
        final List<byte[]> values = new ArrayList<>();
        final SegmentWalk walk = new SegmentWalk((VanillaChronicleHash<?, ?, ?, ?>)map, shards);
        for (int segment = 0; segment < map.segments(); segment++)
        {
            keys.clear();
            values.clear();
            if (!guard.acquireSegment(segment, QuotaTable.TOOL_TIMEOUT_NANOS))
            {
                throw EntryLocks.busy(file, "segment " + segment, QuotaTable.TOOL_TIMEOUT_NANOS);
            }
            try
            {
                counts.census(walk, segment);
                iterate(segment, entry ->
                {
                    final byte[] keyBytes = entry.key().get();
                    if (keyBytes[KeyHasher.KIND_INDEX] != 0)
                    {
                        keys.add(keyBytes.clone());
                        values.add(entry.value().get().clone());
                    }
                });
            }
            finally
            {
                guard.releaseSegment(segment);
            }
            for (int i = 0; i < keys.size(); i++)
            {
                visitor.visit(keys.get(i), new UnsafeBuffer(values.get(i)));
            }
        }
    }

    private long[] countSegments()
    {
        final long[] sizes = new long[map.segments()];
        for (int segment = 0; segment < sizes.length; segment++)
        {
            if (!guard.acquireSegment(segment, QuotaTable.TOOL_TIMEOUT_NANOS))
            {
                throw EntryLocks.busy(file, "segment " + segment, QuotaTable.TOOL_TIMEOUT_NANOS);
            }
            try (MapSegmentContext<byte[], byte[], ?> c = map.segmentContext(segment))
            {
                sizes[segment] = c.size();
            }
            finally
            {
                guard.releaseSegment(segment);
            }
        }
        return sizes;
    }

    /**
     * Iterates one segment with Chronicle's segment context; call under its guard, after its census (which counted
     * and logged a diverged chained tier, where Chronicle's iteration throws after the tiers behind it: the rest of
     * the segment is skipped).
     */
    private void iterate(final int segment, final Consumer<? super MapEntry<byte[], byte[]>> action)
    {
        try (MapSegmentContext<byte[], byte[], ?> c = map.segmentContext(segment))
        {
            c.forEachSegmentEntry(action);
        }
        catch (final IllegalStateException ex)
        {
            // Chronicle throws this after visiting every entry of the tier, when its counter says more exist
            if (!String.valueOf(ex.getMessage()).contains("Size diverged"))
            {
                throw ex;
            }
        }
    }
}
