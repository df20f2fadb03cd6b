package dev.floodgate.reader;

import dev.floodgate.Action;

import java.util.Map;

/**
 * The table-wide counters of a file's record, each read with a volatile load: each is exact, the set is not a
 * snapshot.
 *
 * @param entryCount     entries the table counts (live and tombstoned): the sum of the segments' counts, so a
 *                       process killed between a segment's count and the file's does not show here (each
 *                       segment's count read atomically, the sum not a snapshot across segments).
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
    long tierDivergences)
{
    /** The counters without the tier counts, which were added later: both 0. */
    public TableCounters(final long entryCount, final long janitorRuns, final long reaped, final long tombstoned,
        final long revived, final Map<Action, Long> tableFull, final Map<Action, Long> degraded, final long guardsHeld,
        final long guardRepairs, final long guardTimeouts, final long lastDeadOwner)
    {
        this(entryCount, janitorRuns, reaped, tombstoned, revived, tableFull, degraded, guardsHeld, guardRepairs,
            guardTimeouts, lastDeadOwner, 0, 0);
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
