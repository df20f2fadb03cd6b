package dev.floodgate.tools.load;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.reader.EntryState;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableEntry;

import java.io.PrintWriter;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a load run of {@code demo} or {@code bench} leaves to check: the workers' reports, the table's entries
 * and degraded-check counters afterwards, and whether the run stayed inside one window.
 *
 * @param workers   the finished workers.
 * @param entries   the table's entries after the run, read with the read-only reader.
 * @param states    each entry's bucket or window state, computed with the engine's arithmetic.
 * @param degraded  per action, the checks that ran degraded.
 * @param oneWindow false when a window-door run crossed a window boundary (its expectation is then wrong).
 * @param cluster   the node's cluster figures after the run (its checks the cluster refused or answered by the
 *                  fallback); {@link ClusterStats.Node#NONE}'s zeros without a cluster quota.
 */
public record LoadResult(List<WorkerProcess> workers, List<TableEntry> entries, Map<TableEntry, EntryState> states,
    long[] degraded, boolean oneWindow, ClusterStats.Node cluster)
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
        return run(options, scratch, jvmArgs, workerArgs, durationNs, 0, alignment, out, RunObserver.NONE);
    }

    /**
     * As {@link #run(LoadOptions, ScratchTable, List, List, long, WindowAlignment, PrintWriter)}, with a warm-up,
     * telling {@code observer} when the workers have been released and when the run ended (e.g. to read the
     * cluster's figures over the run).
     *
     * @param options    the processes to start.
     * @param scratch    the table.
     * @param jvmArgs    the workers' JVM options.
     * @param workerArgs the {@code worker} command's arguments.
     * @param durationNs how long the workers run.
     * @param warmupNs   each worker's warm-up before it says READY, 0 for none.
     * @param alignment  keeps a window-door run inside one window; null for the bucket door.
     * @param out        where the progress goes.
     * @param observer   told of the release and of the run's end.
     * @return the outcome.
     */
    public static LoadResult run(final LoadOptions options, final ScratchTable scratch, final List<String> jvmArgs,
        final List<String> workerArgs, final long durationNs, final long warmupNs, final WindowAlignment alignment,
        final PrintWriter out, final RunObserver observer)
    {
        final long[] startEnd = new long[2];
        final List<WorkerProcess> workers = LoadRun.run(options.processes(), options.mainClass(), jvmArgs,
            i -> workerArgs, scratch.dir(), durationNs, warmupNs, earliest ->
            {
                startEnd[0] = alignment == null ? earliest : alignment.applyAsLong(earliest);
                startEnd[1] = startEnd[0] + durationNs;
                return startEnd[0];
            }, out, observer);
        final long[] degraded = new long[Action.values().length];
        final Map<TableEntry, EntryState> states = new IdentityHashMap<>();
        try (FloodgateReader reader = FloodgateReader.open(scratch.file()))
        {
            final List<TableEntry> entries = reader.entries();
            for (final Action each : Action.values())
            {
                degraded[each.ordinal()] = reader.counters().degraded().get(each);
            }
            final long now = System.nanoTime();
            entries.forEach(entry -> states.put(entry, reader.state(entry, now)));
            return new LoadResult(workers, entries, states, degraded, alignment == null ||
                alignment.windowNumber(startEnd[0]) == alignment.windowNumber(startEnd[1]), reader.cluster(entries));
        }
    }

    /** @param action an action. @return its checks that ran degraded. */
    public long degraded(final Action action)
    {
        return degraded[action.ordinal()];
    }
}
