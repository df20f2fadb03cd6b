package dev.floodgate.store;

import java.nio.file.Path;

/**
 * What a scan does with a segment's census ({@link SegmentWalk#census}) under that segment's guard: counts and logs a
 * tier counter repaired or diverged, and brings the segment's and the file's entry counts in line with what the
 * segment holds. Thread-safe (it keeps no state; the caller holds the segment's guard).
 */
final class SegmentCounts
{
    private static final System.Logger LOG = System.getLogger("dev.floodgate");

    private final Path file;
    private final GuardRegion region;
    private final FileHeader header;

    SegmentCounts(final Path file, final GuardRegion region, final FileHeader header)
    {
        this.file = file;
        this.region = region;
        this.header = header;
    }

    /**
     * {@link #census}, then the segment's and the file's entry counts moved by the difference between what the
     * segment holds and what its count says (a process killed between an insert or a removal and its counts left
     * them off), so counts moved by other segments meanwhile are never overwritten. Call under the segment's guard.
     *
     * @return false when a chained tier's counter diverged: the segment is not recounted, and only the diverged tier
     * and the tiers after it are walked.
     */
    boolean censusAndRecount(final SegmentWalk walk, final int segment)
    {
        if (!census(walk, segment))
        {
            return false;
        }
        final long found = walk.quotaEntries();
        final long recorded = region.segmentEntries(segment);
        if (recorded != found)
        {
            region.addSegmentEntries(segment, found - recorded);
            header.addCounter(FileHeader.ENTRY_COUNT_OFFSET, found - recorded);
        }
        return true;
    }

    /**
     * A process killed inside an insert or a removal can leave a tier's entry counter ahead of its hash lookup (the
     * counter is bumped before an insert's slot is written, and dropped after a removal's slot is cleared); the
     * census finds it as Chronicle's iteration did ("Size diverged"). The segment guard is ours, so nobody else is
     * inside Chronicle on this segment: a single-tier segment's counter (in the segment header, within reach) is set
     * to what the hash lookup holds. With chained tiers the counter is left: scans skip the rest of that segment (its
     * tiers before the diverged one, whose entries stay correct for checks; the janitor and tools miss them until the
     * file is recovered offline), and the event is counted, never thrown. Call under the segment's guard.
     *
     * @return true when every tier's counter matches its hash lookup (now).
     */
    boolean census(final SegmentWalk walk, final int segment)
    {
        switch (walk.census(segment))
        {
            case REPAIRED:
                region.countTierRepair();
                LOG.log(System.Logger.Level.WARNING, "{0}: segment {1}''s entry count was {2}, {3} more than its " +
                    "entries (a process died inside an insert); repaired", file, segment, walk.repairedFrom(),
                    walk.repairedFrom() - walk.repairedTo());
                return true;
            case DIVERGED:
                region.countTierDivergence();
                LOG.log(System.Logger.Level.WARNING, "{0}: segment {1}''s entry count diverged in a chained tier (a " +
                    "process died inside an insert); scans skip the rest of that segment until the file is recovered " +
                    "offline", file, segment);
                return false;
            default:
                return true;
        }
    }
}
