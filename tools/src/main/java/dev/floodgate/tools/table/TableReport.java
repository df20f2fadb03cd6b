package dev.floodgate.tools.table;

import dev.floodgate.Action;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.TableGuard;
import org.agrona.concurrent.AtomicBuffer;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Everything {@code stats}, {@code top} and {@code watch} show, read once: the file header's identity and
 * counters (volatile loads, no lock), the attached processes from the header's slots (no lock), and the
 * entries (one copy per segment, see {@link TableSnapshot}).
 *
 * <p>This reads the file directly instead of through {@code Floodgate.stats()} because opening a
 * {@code Floodgate} registers a process and starts its janitor: a reader must not do either.
 *
 * @param file            the file.
 * @param formatVersion   the file's format version.
 * @param shards          window shards per entry.
 * @param capacity        entries the file was sized for.
 * @param createdWallMs   creation time, wall clock.
 * @param bootId          the host boot the file belongs to.
 * @param fileBytes       the file's size.
 * @param entries         every entry copied, tombstoned included.
 * @param tableFull       per action ordinal, checks that found the table full.
 * @param degraded        per action ordinal, checks that could not take the table guard in time.
 * @param guard           the table guard's record: who holds it, repairs and timeouts.
 * @param janitorRuns     janitor passes by every process.
 * @param reaped          entries the janitor removed.
 * @param tombstonedTotal entries the janitor or a reset tombstoned, ever.
 * @param revived         tombstoned entries brought back by a check.
 * @param processes       attached processes.
 * @param nowNanos        the monotonic time of the reading.
 * @param checks          per action, the check counters of every process (admitted, refused, shadowed, never),
 *                        read from the file's counter blocks without a lock.
 */
public record TableReport(
    String file,
    int formatVersion,
    int shards,
    long capacity,
    long createdWallMs,
    String bootId,
    long fileBytes,
    List<EntrySnapshot> entries,
    long[] tableFull,
    long[] degraded,
    Guard guard,
    long janitorRuns,
    long reaped,
    long tombstonedTotal,
    long revived,
    List<AttachedProcess> processes,
    long nowNanos,
    java.util.Map<Action, dev.floodgate.Stats.Checks> checks)
{
    /**
     * The table guard, the owner-named inter-process mutex around every Chronicle Map lock.
     *
     * @param owner         segment guards held now.
     * @param repairs       dead owners taken over (locks reset online).
     * @param timeouts      acquisitions given up because a live owner held it too long.
     * @param lastDeadOwner pid of the last dead owner taken over, 0 if none.
     */
    public record Guard(long owner, long repairs, long timeouts, long lastDeadOwner)
    {
    }

    /**
     * One process slot in use.
     *
     * @param pid          the process id.
     * @param alive        whether a process with that pid runs now.
     * @param heartbeatAgeNs nanoseconds since its last heartbeat.
     * @param attachedForNs  nanoseconds since it attached.
     */
    public record AttachedProcess(long pid, boolean alive, long heartbeatAgeNs, long attachedForNs)
    {
    }

    /**
     * @param table an open table.
     * @return the report.
     */
    public static TableReport read(final QuotaTable table)
    {
        final List<EntrySnapshot> entries = TableSnapshot.entries(table);
        final FileHeader header = table.header();
        final long now = System.nanoTime();
        final long[] tableFull = new long[Action.values().length];
        final long[] degraded = new long[Action.values().length];
        for (final Action action : Action.values())
        {
            tableFull[action.ordinal()] = header.counterVolatile(FileHeader.tableFullOffset(action));
            degraded[action.ordinal()] = header.counterVolatile(FileHeader.degradedOffset(action));
        }
        final TableGuard tableGuard = table.guard();
        final Guard guard = new Guard(tableGuard.heldSegments(), tableGuard.repairs(), tableGuard.timeouts(),
            tableGuard.lastDeadOwner());
        return new TableReport(table.file().toString(), header.version(), table.shards(), table.capacity(),
            header.createdWallMs(), header.bootId().toString(), table.fileSize(), entries, tableFull, degraded, guard,
            header.counterVolatile(FileHeader.JANITOR_RUNS_OFFSET), header.counterVolatile(FileHeader.REAPED_OFFSET),
            header.counterVolatile(FileHeader.TOMBSTONED_OFFSET), header.counterVolatile(FileHeader.REVIVED_OFFSET),
            processes(table, header.buffer(), now), now, dev.floodgate.Floodgate.readChecks(header));
    }

    private static List<AttachedProcess> processes(final QuotaTable table, final AtomicBuffer buffer, final long now)
    {
        final List<AttachedProcess> processes = new ArrayList<>();
        for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
        {
            final int base = FileHeader.processOffset(slot);
            final long owner = buffer.getLongVolatile(base + FileHeader.PROCESS_OWNER);
            if (owner != 0)
            {
                processes.add(new AttachedProcess(buffer.getLongVolatile(base + FileHeader.PROCESS_PID),
                    table.locks().isAlive(owner),
                    now - buffer.getLongVolatile(base + FileHeader.PROCESS_HEARTBEAT_NANOS),
                    now - buffer.getLongVolatile(base + FileHeader.PROCESS_ATTACHED_NANOS)));
            }
        }
        return List.copyOf(processes);
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
        return capacity <= 0 ? 0 : 100.0 * entries.size() / capacity;
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

    /** @return table-full events over every action. */
    public long tableFullTotal()
    {
        return sum(tableFull);
    }

    /** @return degraded checks over every action. */
    public long degradedTotal()
    {
        return sum(degraded);
    }

    private static long sum(final long[] counts)
    {
        long total = 0;
        for (final long n : counts)
        {
            total += n;
        }
        return total;
    }

    /**
     * @param action the action, or null for every action.
     * @param n      how many.
     * @return the live blocked counters of that action with the most refusals, count descending.
     */
    public List<EntrySnapshot> topBlocked(final Action action, final int n)
    {
        return entries.stream()
            .filter(e -> !e.tombstoned() && e.kind() == EntryKind.BLOCKED && (action == null || e.action() == action))
            .sorted(Comparator.comparingLong(EntrySnapshot::state).reversed()
                .thenComparing(EntrySnapshot::label))
            .limit(n)
            .toList();
    }
}
