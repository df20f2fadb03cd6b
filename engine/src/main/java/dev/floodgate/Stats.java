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
 * @param tableFull        per action, entries the full table could not take: a new key's (its check answered by
 *                         {@code <action>_rate_unreachable}), a refusal's blocked counter, or a cluster lease's.
 * @param degraded         per action, checks that could not reach the table in time because a live process held
 *                         its guard (answered by the same rule: refuse with a short retry-after by default, or admit,
 *                         counted).
 * @param guardRepairs     processes that died inside a table operation and whose locks were reset online.
 * @param janitorRuns      janitor passes over this file, by every process.
 * @param reaped           entries removed by the janitor.
 * @param revived          tombstoned entries brought back by a check.
 * @param attachedProcesses processes that have the file open.
 * @param fileBytes        the file's size.
 * @param checks           per action, checks by every process since the file was created (see {@link Checks}).
 * @param cluster          the node's cluster-quota figures: leases held, tokens unused, round trips, fallbacks
 *                         ({@link ClusterStats.Node#NONE} on a node that never leased).
 * @param clusterConnection this process's connection to the cluster's Redis ({@code NONE} without a cluster quota).
 * @param tierRepairs      segment entry counts found ahead of their entries (a process died inside an insert) and
 *                         repaired online by a scan.
 * @param tierDivergences  scans that found a segment's entry count diverged in a chained tier, beyond an online
 *                         repair (each scan of such a segment counts again, so a figure that keeps rising means one
 *                         such segment or more, not that many): the janitor and the tools skip the rest of that
 *                         segment (its idle entries are not reaped) until the file is recovered offline; checks are
 *                         unaffected.
 * @param segmentEntryCount entries in the segments (every kind, live and tombstoned): the sum of the segments'
 *                         counts, each read atomically (not a snapshot across segments).
 * @param fileEntryCount   entries counted by the file: the count a new key's insert tests against the capacity.
 *                         Equal to {@code segmentEntryCount} at rest; see {@link #entryCountDifference}.
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
    long fileBytes,
    Map<Action, Checks> checks,
    ClusterStats.Node cluster,
    ClusterStats.Connection clusterConnection,
    long tierRepairs,
    long tierDivergences,
    long segmentEntryCount,
    long fileEntryCount)
{
    /** The summary without the tier counts, which were added later: both 0. */
    public Stats(final long buckets, final long windowCounters, final long blockedEntries, final long tombstoned,
        final long capacity, final int shards, final Map<Action, Long> tableFull, final Map<Action, Long> degraded,
        final long guardRepairs, final long janitorRuns, final long reaped, final long revived,
        final int attachedProcesses, final long fileBytes, final Map<Action, Checks> checks,
        final ClusterStats.Node cluster, final ClusterStats.Connection clusterConnection)
    {
        this(buckets, windowCounters, blockedEntries, tombstoned, capacity, shards, tableFull, degraded, guardRepairs,
            janitorRuns, reaped, revived, attachedProcesses, fileBytes, checks, cluster, clusterConnection, 0, 0);
    }

    /** The summary without the two entry counts, which were added later: both 0 (no difference). */
    public Stats(final long buckets, final long windowCounters, final long blockedEntries, final long tombstoned,
        final long capacity, final int shards, final Map<Action, Long> tableFull, final Map<Action, Long> degraded,
        final long guardRepairs, final long janitorRuns, final long reaped, final long revived,
        final int attachedProcesses, final long fileBytes, final Map<Action, Checks> checks,
        final ClusterStats.Node cluster, final ClusterStats.Connection clusterConnection, final long tierRepairs,
        final long tierDivergences)
    {
        this(buckets, windowCounters, blockedEntries, tombstoned, capacity, shards, tableFull, degraded, guardRepairs,
            janitorRuns, reaped, revived, attachedProcesses, fileBytes, checks, cluster, clusterConnection,
            tierRepairs, tierDivergences, 0, 0);
    }

    /**
     * One action's check counters, summed over every process that has had the file open (each process's
     * counts reach the file every 100 ms and on close; a killed process loses its last 100 ms).
     *
     * @param admitted checks that admitted, shadow admissions included.
     * @param refused  checks that refused, impossible charges included: {@code admitted + refused} is the
     *                 number of checks.
     * @param shadowed checks admitted only because the action is in shadow mode.
     * @param never    charges above the whole limit ({@link Floodgate#NEVER}).
     */
    public record Checks(long admitted, long refused, long shadowed, long never)
    {
        /** @return all checks. */
        public long total()
        {
            return admitted + refused;
        }
    }

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

    /**
     * Entries in the segments less entries counted by the file, both read without a lock: off by an operation or
     * two for a moment while inserts and removals run; a difference that stays is a process that died between an
     * insert's or a removal's two counts (positive: the table would take that many keys past its capacity; negative:
     * it would report itself full that much early), which a janitor repairs within two of its passes.
     *
     * @return {@code segmentEntryCount - fileEntryCount}.
     */
    public long entryCountDifference()
    {
        return segmentEntryCount - fileEntryCount;
    }

    /**
     * @return the live bucket, window and blocked-counter entries: {@code buckets + windowCounters +
     * blockedEntries}. Not counted: lease entries ({@code cluster().leasesHeld()}), tombstoned entries of any kind
     * ({@link #tombstoned}) and entries the pass could not read; so not the table's occupancy, which the
     * {@code floodgate.table.entries} meter gives (leases and tombstones included), nor
     * {@link #segmentEntryCount} (every kind, by the segments' own counts).
     */
    public long entries()
    {
        return buckets + windowCounters + blockedEntries;
    }
}
