package dev.floodgate.reader;

import dev.floodgate.Action;

import java.util.Map;

/**
 * The table-wide counters of a file's record, each read with a volatile load: each is exact, the set is not a
 * snapshot.
 *
 * @param entryCount     entries in the segments (live and tombstoned): the sum of the segments' counts, right even
 *                       after a process was killed between a segment's count and the file's (each segment's count
 *                       read atomically, the sum not a snapshot across segments).
 * @param janitorRuns    janitor passes, by every process.
 * @param reaped         entries the janitor removed.
 * @param tombstoned     entries the janitor or a reset tombstoned, ever.
 * @param revived        tombstoned entries brought back by a check.
 * @param tableFull      per action, checks that found the table full.
 * @param degraded       per action, checks that could not take the table guard in time.
 * @param guardsHeld     segment guards held at this moment (a table operation in progress, or stopped).
 * @param guardRepairs   dead guard owners taken over (locks reset online).
 * @param guardTimeouts  guard acquisitions given up.
 * @param lastDeadOwner  pid of the last dead owner taken over, 0 if none.
 * @param tierRepairs    segment entry counts a scan found ahead of the segment's entries (a process died inside an
 *                       insert) and repaired online.
 * @param tierDivergences scans that found a segment's entry count diverged in a chained tier, out of reach of an
 *                       online repair (each scan of such a segment counts again): scans (the janitor's, the tools')
 *                       skip the rest of that segment until the file is recovered offline (checks are unaffected).
 * @param fileEntryCount entries counted by the file: the one count an insert tests against the capacity, moved after
 *                       a segment's count by every insert and removal. Equal to {@code entryCount} at rest; see
 *                       {@link #entryCountDifference}.
 * @param entryRepairsGivenUp repairs of the file's count that could not take every segment guard within their
 *                       budget (a live process held one), each tried again at the janitor's next pass; not among
 *                       {@code guardTimeouts}.
 */
public record TableCounters(
    long entryCount,
    long janitorRuns,
    long reaped,
    long tombstoned,
    long revived,
    Map<Action, Long> tableFull,
    Map<Action, Long> degraded,
    long guardsHeld,
    long guardRepairs,
    long guardTimeouts,
    long lastDeadOwner,
    long tierRepairs,
    long tierDivergences,
    long fileEntryCount,
    long entryRepairsGivenUp)
{
    /** The counters without the tier counts, which were added later: both 0 (and no file count apart). */
    public TableCounters(final long entryCount, final long janitorRuns, final long reaped, final long tombstoned,
        final long revived, final Map<Action, Long> tableFull, final Map<Action, Long> degraded, final long guardsHeld,
        final long guardRepairs, final long guardTimeouts, final long lastDeadOwner)
    {
        this(entryCount, janitorRuns, reaped, tombstoned, revived, tableFull, degraded, guardsHeld, guardRepairs,
            guardTimeouts, lastDeadOwner, 0, 0);
    }

    /**
     * The counters without the file's own count and the repairs given up, which were added later: the file's count
     * taken as {@code entryCount} (no difference), no repair given up.
     */
    public TableCounters(final long entryCount, final long janitorRuns, final long reaped, final long tombstoned,
        final long revived, final Map<Action, Long> tableFull, final Map<Action, Long> degraded, final long guardsHeld,
        final long guardRepairs, final long guardTimeouts, final long lastDeadOwner, final long tierRepairs,
        final long tierDivergences)
    {
        this(entryCount, janitorRuns, reaped, tombstoned, revived, tableFull, degraded, guardsHeld, guardRepairs,
            guardTimeouts, lastDeadOwner, tierRepairs, tierDivergences, entryCount, 0);
    }

    /**
     * Entries in the segments less entries counted by the file. Both are read without any lock, so while inserts
     * and removals run it may be off by an operation or two for the moment of reading (one between its two counts,
     * or one that ended between the loads). One that stays, reading after reading, is a process that died between
     * the two counts: positive after an insert (the table takes that many keys past its capacity), negative after a
     * removal (it reports the table full that much early). A writer's janitor repairs it within two passes of the
     * death (never this reader, which writes nothing); {@code entryRepairsGivenUp} rising meanwhile says a live
     * process held a segment through the repair's budget.
     *
     * @return {@code entryCount - fileEntryCount}.
     */
    public long entryCountDifference()
    {
        return entryCount - fileEntryCount;
    }

    /** @return table-full events over every action. */
    public long tableFullTotal()
    {
        return tableFull.values().stream().mapToLong(Long::longValue).sum();
    }

    /** @return degraded checks over every action. */
    public long degradedTotal()
    {
        return degraded.values().stream().mapToLong(Long::longValue).sum();
    }
}
