package dev.floodgate;

import java.util.Map;

/**
 * A table-wide summary. Entry counts come from one pass over the table (segment by segment, so not a
 * snapshot across segments); counters are read from the file's record with volatile loads.
 *
 * @param buckets          live token-bucket entries.
 * @param windowCounters   live sharded-window entries.
 * @param blockedEntries   live blocked counters.
 * @param tombstoned       entries the janitor is ageing out.
 * @param capacity         entries the file was sized for.
 * @param shards           window shards per entry, fixed in the file.
 * @param tableFull        per action, checks that found the table full (and applied the table-full policy).
 * @param degraded         per action, checks that could not reach the table in time because a live process held
 *                         its guard (and applied the same policy: security controls refuse, others admit).
 * @param guardRepairs     processes that died inside a table operation and whose locks were reset online.
 * @param janitorRuns      janitor passes over this file, by every process.
 * @param reaped           entries removed by the janitor.
 * @param revived          tombstoned entries brought back by a check.
 * @param attachedProcesses processes that have the file open.
 * @param fileBytes        the file's size.
 */
public record Stats(
    long buckets,
    long windowCounters,
    long blockedEntries,
    long tombstoned,
    long capacity,
    int shards,
    Map<Action, Long> tableFull,
    Map<Action, Long> degraded,
    long guardRepairs,
    long janitorRuns,
    long reaped,
    long revived,
    int attachedProcesses,
    long fileBytes)
{
    /** @return table-full events over every action. */
    public long tableFullEvents()
    {
        return tableFull.values().stream().mapToLong(Long::longValue).sum();
    }

    /** @return degraded checks over every action. */
    public long degradedChecks()
    {
        return degraded.values().stream().mapToLong(Long::longValue).sum();
    }

    /** @return live entries of every kind. */
    public long entries()
    {
        return buckets + windowCounters + blockedEntries;
    }
}
