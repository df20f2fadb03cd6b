package dev.floodgate.tools.table;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.Stats;
import dev.floodgate.reader.BlockedCount;
import dev.floodgate.reader.BlockedRanking;
import dev.floodgate.reader.EntryCounts;
import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.FileIdentity;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableCounters;

import java.util.List;
import java.util.Map;

/**
 * Everything {@code stats}, {@code top} and {@code watch} show, read once through a {@link FloodgateReader}:
 * read-only, no lock, no process registered. One walk counts the entries and ranks the blocked counters
 * ({@link FloodgateReader#countEntriesByAction}), copying only those it ranks among the top.
 *
 * @param file       the file.
 * @param identity   the file's identity.
 * @param counters   table-wide counters and the table guard's record.
 * @param checks     per action, the check counters of every process.
 * @param attached   processes attached now.
 * @param counts     per action, the entries counted by kind, live and tombstoned.
 * @param top        the live blocked counters with the most refusals, most first; empty unless asked for.
 * @param unreadable entries the walk skipped (torn by a writer, or damaged).
 * @param cluster    the node's cluster-quota figures: the live leases the walk counted and the counters every JVM
 *                   of the node adds to the file (this reader is not connected to Redis).
 */
public record TableReading(
    String file,
    FileIdentity identity,
    TableCounters counters,
    Map<Action, Stats.Checks> checks,
    int attached,
    Map<Action, EntryCounts> counts,
    List<BlockedCount> top,
    long unreadable,
    ClusterStats.Node cluster)
{
    /**
     * @param reader an open reader.
     * @return what it reads now, no blocked counter ranked ({@code stats}).
     */
    public static TableReading read(final FloodgateReader reader)
    {
        return read(reader, null, 0);
    }

    /**
     * @param reader an open reader.
     * @param action the action whose blocked counters to rank, or null for every action.
     * @param n      how many to keep in {@link #top}, 0 or more (more than an int holds keeps every one).
     * @return what it reads now.
     */
    public static TableReading read(final FloodgateReader reader, final Action action, final long n)
    {
        final BlockedRanking ranking = BlockedRanking.live(action, (int)Math.min(n, Integer.MAX_VALUE));
        final Map<Action, EntryCounts> counts = reader.countEntriesByAction(ranking);
        EntryCounts all = EntryCounts.NONE;
        for (final EntryCounts one : counts.values())
        {
            all = all.plus(one);
        }
        return new TableReading(reader.file().toString(), reader.identity(), reader.counters(), reader.checks(),
            reader.attachedProcesses(), counts, ranking.top(), reader.unreadableEntries(), reader.cluster(all));
    }

    /** @return entries, live and tombstoned: the slots they fill. */
    public long entries()
    {
        return liveEntries() + tombstonedEntries();
    }

    /** @return live (not tombstoned) entries. */
    public long liveEntries()
    {
        long live = 0;
        for (final EntryCounts one : counts.values())
        {
            live += one.live();
        }
        return live;
    }

    /** @return tombstoned entries still in the table. */
    public long tombstonedEntries()
    {
        long tombstoned = 0;
        for (final EntryCounts one : counts.values())
        {
            tombstoned += one.tombstoned();
        }
        return tombstoned;
    }

    /** @return occupied slots (live and tombstoned) as a percentage of capacity. */
    public double occupancyPercent()
    {
        return identity.capacity() <= 0 ? 0 : 100.0 * entries() / identity.capacity();
    }

    /**
     * @param kind   a kind.
     * @param action an action.
     * @return live entries of that kind and action.
     */
    public long count(final EntryKind kind, final Action action)
    {
        return counts.get(action).live(kind);
    }
}
