package dev.floodgate.tools.load;

import dev.floodgate.Action;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.tools.table.EntrySnapshot;
import dev.floodgate.tools.table.TableSnapshot;

import java.io.PrintWriter;
import java.util.List;

/**
 * What a load run of {@code demo} or {@code bench} leaves to check: the workers' reports, the table's entries
 * and degraded-check counters afterwards, and whether the run stayed inside one window.
 *
 * @param workers   the finished workers.
 * @param entries   the table's entries after the run.
 * @param degraded  per action, the checks that ran degraded.
 * @param oneWindow false when a window-door run crossed a window boundary (its expectation is then wrong).
 */
public record LoadResult(List<WorkerProcess> workers, List<EntrySnapshot> entries, long[] degraded,
    boolean oneWindow)
{
    /**
     * Runs the workers against the scratch table (see {@link LoadRun}) and reads the table afterwards.
     *
     * @param options    the processes to start.
     * @param scratch    the table.
     * @param jvmArgs    the workers' JVM options.
     * @param workerArgs the {@code worker} command's arguments.
     * @param durationNs how long the workers run.
     * @param alignment  keeps a window-door run inside one window; null for the bucket door.
     * @param out        where the progress goes.
     * @return the outcome.
     */
    public static LoadResult run(final LoadOptions options, final ScratchTable scratch, final List<String> jvmArgs,
        final List<String> workerArgs, final long durationNs, final WindowAlignment alignment, final PrintWriter out)
    {
        final long[] startEnd = new long[2];
        final List<WorkerProcess> workers = LoadRun.run(options.processes(), jvmArgs, workerArgs, scratch.dir(),
            durationNs, earliest ->
            {
                startEnd[0] = alignment == null ? earliest : alignment.applyAsLong(earliest);
                startEnd[1] = startEnd[0] + durationNs;
                return startEnd[0];
            }, out);
        final long[] degraded = new long[Action.values().length];
        try (QuotaTable table = QuotaTable.open(scratch.file(), 1, 1, false, System.nanoTime()))
        {
            final List<EntrySnapshot> entries = TableSnapshot.entries(table);
            for (final Action each : Action.values())
            {
                degraded[each.ordinal()] = table.header().counterVolatile(FileHeader.degradedOffset(each));
            }
            return new LoadResult(workers, entries, degraded, alignment == null ||
                alignment.windowNumber(startEnd[0]) == alignment.windowNumber(startEnd[1]));
        }
    }

    /** @param action an action. @return its checks that ran degraded. */
    public long degraded(final Action action)
    {
        return degraded[action.ordinal()];
    }
}
