package dev.floodgate.tools.table;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.Stats;
import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.FileIdentity;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableCounters;
import dev.floodgate.reader.TableEntry;

import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Everything {@code stats}, {@code top} and {@code watch} show, read once through a {@link FloodgateReader}:
 * read-only, no lock, no process registered.
 *
 * @param file       the file.
 * @param identity   the file's identity.
 * @param counters   table-wide counters and the table guard's record.
 * @param checks     per action, the check counters of every process.
 * @param attached   processes attached now.
 * @param entries    every entry, tombstoned included.
 * @param unreadable entries the walk skipped (torn by a writer, or damaged).
 * @param cluster    the node's cluster-quota figures: its lease entries in {@code entries} and the counters
 *                   every JVM of the node adds to the file (this reader is not connected to Redis).
 */
public record TableReading(
    String file,
    FileIdentity identity,
    TableCounters counters,
    Map<Action, Stats.Checks> checks,
    int attached,
    List<TableEntry> entries,
    long unreadable,
    ClusterStats.Node cluster)
{
    /**
     * @param reader an open reader.
     * @return what it reads now.
     */
    public static TableReading read(final FloodgateReader reader)
    {
        final List<TableEntry> entries = reader.entries();
        return new TableReading(reader.file().toString(), reader.identity(), reader.counters(), reader.checks(),
            reader.attachedProcesses(), entries, reader.unreadableEntries(), reader.cluster(entries));
    }

    /** @return live (not tombstoned) entries. */
    public long liveEntries()
    {
        return entries.stream().filter(e -> !e.tombstoned()).count();
    }

    /** @return tombstoned entries still in the table. */
    public long tombstonedEntries()
    {
        return entries.size() - liveEntries();
    }

    /** @return occupied slots (live and tombstoned) as a percentage of capacity. */
    public double occupancyPercent()
    {
        return identity.capacity() <= 0 ? 0 : 100.0 * entries.size() / identity.capacity();
    }

    /**
     * @param kind   a kind.
     * @param action an action.
     * @return live entries of that kind and action.
     */
    public long count(final EntryKind kind, final Action action)
    {
        return entries.stream().filter(e -> !e.tombstoned() && e.kind() == kind && e.action() == action).count();
    }

    /**
     * @param action the action, or null for every action.
     * @param n      how many.
     * @return the live blocked counters of that action with the most refusals, count descending.
     */
    public List<TableEntry> topBlocked(final Action action, final long n)
    {
        return entries.stream()
            .filter(e -> !e.tombstoned() && e.kind() == EntryKind.BLOCKED && (action == null || e.action() == action))
            .sorted(Comparator.comparingLong(TableEntry::blocked).reversed().thenComparing(TableEntry::label))
            .limit(n)
            .toList();
    }
}
