package dev.floodgate.store;

import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.impl.BigSegmentHeader;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapSegmentContext;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Whole-table scans for writers (the janitor, resets): one segment at a time under that segment's guard, so a
 * scan holds up only the cold checks of the segment it is in. Each scan of a segment also brings the segment's and
 * the file's entry counts back in line with what the segment holds (a process killed between an insert and its
 * counts leaves them off), by adding the difference, so counts moved by other segments meanwhile are never
 * overwritten; the janitor's scan then repairs the file's count where a process died between the segment's count
 * and the file's ({@link EntryTotalRepair}). Each scan is counted in and out of the table's {@link Operations}, so a
 * closing table waits for it. Thread-safe.
 */
public final class TableScans
{
    private static final System.Logger LOG = System.getLogger("dev.floodgate");
    private static final Pattern MORE = Pattern.compile("there should be (\\d+) more");

    private final Path file;
    private final ChronicleMap<byte[], byte[]> map;
    private final TableGuard guard;
    private final GuardRegion region;
    private final FileHeader header;
    private final Operations operations;
    private final EntryTotalRepair totalRepair;

    TableScans(final Path file, final ChronicleMap<byte[], byte[]> map, final TableGuard guard,
        final FileHeader header, final Operations operations)
    {
        this.file = file;
        this.map = map;
        this.guard = guard;
        this.region = guard.region();
        this.header = header;
        this.operations = operations;
        this.totalRepair = new EntryTotalRepair(file, guard, header);
    }

    /**
     * Visits every quota entry in place, one segment at a time under its guard (the janitor's scan: it runs often
     * and must not make garbage). Also keeps the segments' and the file's entry counts exact: a scan that skipped no
     * segment ends with {@link EntryTotalRepair#repairIfDrifted}, which takes every segment's guard at once for a
     * moment when the file's count has stayed apart from the segments' sum (a process died between the two). A
     * segment whose guard a live process holds for {@link QuotaTable#CHECK_TIMEOUT_NANOS} (stopped inside an
     * operation) is skipped: a stopped process holds up what it holds, not the whole scan. Once the table is closing
     * the scan stops at the next segment, and the segments left count as skipped.
     *
     * @param visitor receives each entry.
     * @return the number of segments skipped.
     */
    public int forEachEntryInPlace(final InPlaceVisitor visitor)
    {
        operations.enter();
        try
        {
            final int skipped = scanInPlace(visitor);
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
        final long[] found = new long[1];
        final Consumer<MapEntry<byte[], byte[]>> each = entry ->
        {
            final Data<byte[]> k = entry.key();
            key.wrap(k.bytes().addressForRead(k.offset()), KeyHasher.KEY_LENGTH);
            if (key.getByte(KeyHasher.KIND_INDEX) != 0)
            {
                found[0]++;
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
                found[0] = 0;
                if (scanSegment(segment, each))
                {
                    recount(segment, found[0]);
                }
            }
            finally
            {
                guard.releaseSegment(segment);
            }
        }
        return skipped;
    }

    private void scanCopies(final EntryVisitor visitor)
    {
        final List<byte[]> keys = new ArrayList<>();
        final List<byte[]> values = new ArrayList<>();
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
                scanSegment(segment, entry ->
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
        final long[] counts = new long[map.segments()];
        for (int segment = 0; segment < counts.length; segment++)
        {
            if (!guard.acquireSegment(segment, QuotaTable.TOOL_TIMEOUT_NANOS))
            {
                throw EntryLocks.busy(file, "segment " + segment, QuotaTable.TOOL_TIMEOUT_NANOS);
            }
            try (MapSegmentContext<byte[], byte[], ?> c = map.segmentContext(segment))
            {
                counts[segment] = c.size();
            }
            finally
            {
                guard.releaseSegment(segment);
            }
        }
        return counts;
    }

    private void recount(final int segment, final long found)
    {
        final long recorded = region.segmentEntries(segment);
        if (recorded != found)
        {
            region.addSegmentEntries(segment, found - recorded);
            header.addCounter(FileHeader.ENTRY_COUNT_OFFSET, found - recorded);
        }
    }

    /**
     * Iterates one segment; call under its guard.
     *
     * @return true when every entry was visited; false when a diverged chained tier cut the scan short.
     */
    private boolean scanSegment(final int segment, final Consumer<? super MapEntry<byte[], byte[]>> action)
    {
        try (MapSegmentContext<byte[], byte[], ?> c = map.segmentContext(segment))
        {
            c.forEachSegmentEntry(action);
            return true;
        }
        catch (final IllegalStateException ex)
        {
            // Chronicle throws this after visiting every entry of the tier, when its counter says more exist
            if (!String.valueOf(ex.getMessage()).contains("Size diverged"))
            {
                throw ex;
            }
            return repairTierCount(segment, ex);
        }
    }

    /**
     * A process killed inside an insert can leave the segment's entry counter ahead of its hash lookup (the
     * counter is bumped before the slot is written). The segment guard is ours, so nobody else is inside
     * Chronicle on this segment: when the segment has a single tier (its counter lives in the segment header,
     * where we can reach it), set the counter to what the iteration found. With chained tiers the counter is out
     * of reach: the scan skips the rest of that segment (its entries stay correct for checks; the janitor and
     * tools miss its later tiers until the file is recovered offline), and the event is counted, never thrown.
     *
     * @return true when repaired (the scan saw every entry).
     */
    private boolean repairTierCount(final int segment, final IllegalStateException ex)
    {
        final long address = ((VanillaChronicleHash<?, ?, ?, ?>)map).segmentHeaderAddress(segment);
        final Matcher extra = MORE.matcher(ex.getMessage());
        if (BigSegmentHeader.INSTANCE.nextTierIndex(address) != 0 || !extra.find())
        {
            region.countTierDivergence();
            LOG.log(System.Logger.Level.WARNING, "{0}: segment {1}''s entry count diverged in a chained tier (a " +
                "process died inside an insert); scans skip the rest of that segment until the file is recovered " +
                "offline", file, segment);
            return false;
        }
        final long entries = BigSegmentHeader.INSTANCE.entries(address);
        BigSegmentHeader.INSTANCE.entries(address, entries - Long.parseLong(extra.group(1)));
        region.countTierRepair();
        LOG.log(System.Logger.Level.WARNING, "{0}: segment {1}''s entry count was {2}, {3} more than its entries " +
            "(a process died inside an insert); repaired", file, segment, entries, extra.group(1));
        return true;
    }
}
