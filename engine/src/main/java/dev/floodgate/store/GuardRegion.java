package dev.floodgate.store;

import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Floodgate's words in the space Chronicle Map leaves unused: the guard words ({@link TableGuard}, which alone
 * takes and releases them and keeps its counters here) and the records others keep beside them, each segment's
 * entry count, the tier counts repaired or diverged ({@link TableScans}) and the paired lock file
 * ({@link LockFilePairing}).
 *
 * <p>Where the words live: a segment guard and that segment's entry count in the unused tail of Chronicle's
 * segment header (Chronicle 2026.1 uses its first 32 bytes; headers are at least 64 bytes below 16 Ki
 * segments), the rest in the last cache line before the page-aligned segment headers, space Chronicle reserves
 * for its global mutable state but does not use. Every process finds both right after mapping, without a lock;
 * {@link #locate} checks that they are clear of Chronicle's own words.
 *
 * <pre>
 *   Segment header of segment s (Chronicle's, first tier):
 *    0  Chronicle: lock word, entries, lowest free chunk, next tier, deleted
 *   32  Segment guard (64): owner word, 0 when free
 *   40  Floodgate entries in the segment (64), written under the segment guard
 *
 *   Guard line (64 bytes before the segment headers):
 *    0  Allocation guard (64): owner word
 *    8  Policy guard (64): owner word
 *   16  Repairs (64): dead owners taken over
 *   24  Last dead owner word (64)
 *   32  Timeouts (64): acquisitions given up
 *   40  Tier counts repaired (64)
 *   48  Tier counts diverged beyond repair (64)
 *   56  Paired lock file (64): the inode of the lock file the table's processes use, 0 before the first
 *       attach ({@link LockFilePairing})
 * </pre>
 */
public final class GuardRegion
{
    public static final int SEGMENT_GUARD_OFFSET = 32;
    public static final int SEGMENT_ENTRIES_OFFSET = 40;
    private static final int SEGMENT_HEADER_USED = 48;

    public static final int ALLOCATION_OFFSET = 0;
    public static final int POLICY_OFFSET = 8;
    public static final int REPAIRS_OFFSET = 16;
    public static final int LAST_DEAD_OFFSET = 24;
    public static final int TIMEOUTS_OFFSET = 32;
    public static final int TIER_REPAIRS_OFFSET = 40;
    public static final int TIER_DIVERGENCES_OFFSET = 48;
    public static final int PAIRED_LOCK_FILE_OFFSET = 56;
    public static final int LENGTH = 64;

    private final UnsafeBuffer line;
    private final UnsafeBuffer[] segments;

    private GuardRegion(final UnsafeBuffer line, final VanillaChronicleHash<?, ?, ?, ?> map)
    {
        this.line = line;
        this.segments = new UnsafeBuffer[map.segments()];
        for (int s = 0; s < segments.length; s++)
        {
            segments[s] = new UnsafeBuffer(map.segmentHeaderAddress(s), SEGMENT_HEADER_USED);
        }
    }

    /**
     * @param map a mapped table.
     * @return its region.
     * @throws IllegalStateException if the reserved space is not where this version of Chronicle Map leaves it.
     */
    static GuardRegion locate(final VanillaChronicleHash<?, ?, ?, ?> map)
    {
        final long segmentHeaders = map.globalMutableState().getSegmentHeadersOffset();
        final long offset = segmentHeaders - LENGTH;
        if (offset < map.mapHeaderInnerSize() || offset % LENGTH != 0)
        {
            throw new IllegalStateException("no free line before the segment headers (header ends at " +
                map.mapHeaderInnerSize() + ", segment headers at " + segmentHeaders + ")");
        }
        if (map.segments() > 1 && map.segmentHeaderAddress(1) - map.segmentHeaderAddress(0) < SEGMENT_HEADER_USED)
        {
            throw new IllegalStateException("segment headers of " + (map.segmentHeaderAddress(1) -
                map.segmentHeaderAddress(0)) + " bytes leave no room for the segment guards");
        }
        return new GuardRegion(new UnsafeBuffer(map.bsAddress() + offset, LENGTH), map);
    }

    /** @return the guard line, for {@link TableGuard}. */
    UnsafeBuffer line()
    {
        return line;
    }

    /** @return Floodgate's words of each segment header, by segment, for {@link TableGuard}. */
    UnsafeBuffer[] segmentHeaders()
    {
        return segments;
    }

    /** @param segment a segment whose guard this thread holds. @return the Floodgate entries it records. */
    long segmentEntries(final int segment)
    {
        return segments[segment].getLong(SEGMENT_ENTRIES_OFFSET);
    }

    /** @param segment any segment, no guard held. @return the Floodgate entries it records, volatile (it may move). */
    long segmentEntriesVolatile(final int segment)
    {
        return segments[segment].getLongVolatile(SEGMENT_ENTRIES_OFFSET);
    }

    /** @param segment a segment whose guard this thread holds. @param delta entries added (or removed). */
    void addSegmentEntries(final int segment, final long delta)
    {
        segments[segment].putLong(SEGMENT_ENTRIES_OFFSET, segments[segment].getLong(SEGMENT_ENTRIES_OFFSET) + delta);
    }

    /** @return the inode of the lock file the table is paired with, 0 when none (volatile). */
    long pairedLockFileVolatile()
    {
        return line.getLongVolatile(PAIRED_LOCK_FILE_OFFSET);
    }

    /** Pairs the table with a lock file's inode, by compare-and-set. @return whether it moved. */
    boolean pairLockFile(final long expected, final long nonce)
    {
        return line.compareAndSetLong(PAIRED_LOCK_FILE_OFFSET, expected, nonce);
    }

    /** Counts a segment entry counter repaired after a process died inside an insert. */
    void countTierRepair()
    {
        line.getAndAddLong(TIER_REPAIRS_OFFSET, 1);
    }

    /** Counts a chained tier whose entry counter diverged and could not be repaired online. */
    void countTierDivergence()
    {
        line.getAndAddLong(TIER_DIVERGENCES_OFFSET, 1);
    }
}
