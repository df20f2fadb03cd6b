package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.cluster.ClusterTally;
import dev.floodgate.tools.format.Durations;
import dev.floodgate.tools.load.Exactness;
import dev.floodgate.tools.load.LoadResult;
import dev.floodgate.tools.load.Throughput;
import dev.floodgate.tools.load.WorkerProcess;
import org.HdrHistogram.Histogram;

import java.io.PrintWriter;
import java.util.List;

/**
 * What {@code floodgate bench} prints once its workers have finished, and its exit code: throughput per JVM and in
 * total, latency percentiles, and whether the admissions are exactly what the quotas allow.
 *
 * @param action    the measured action.
 * @param perKey    its limit per key.
 * @param windowMs  its window.
 * @param checkable false when a token comes back during the run: the admissions are then not held to the limit.
 */
record BenchVerdict(Action action, long perKey, long windowMs, boolean checkable)
{
    /**
     * @param out    where the report goes.
     * @param result the finished run.
     * @param tally  the cluster's figures over the run; null without a cluster quota.
     * @return OK, or REFUSED when the admissions differ from what the quotas allow.
     */
    int report(final PrintWriter out, final LoadResult result, final ClusterTally tally)
    {
        final List<WorkerProcess> workers = result.workers();
        out.println();
        final Histogram latency = Throughput.print(out, workers);
        out.println();
        out.printf("latency per check (ns, timer included, %,d samples): p50 %,d  p90 %,d  p99 %,d  p99.9 %,d  " +
            "p99.99 %,d  max %,d%n", latency.getTotalCount(), latency.getValueAtPercentile(50),
            latency.getValueAtPercentile(90), latency.getValueAtPercentile(99), latency.getValueAtPercentile(99.9),
            latency.getValueAtPercentile(99.99), latency.getMaxValue());
        final Exactness.Verdict verdict = Exactness.check(action, perKey, Exactness.merge(workers),
            result.entries(), result.degraded(action));
        final boolean oneWindow = result.oneWindow();
        out.printf("admitted %,d of %,d attempts on %,d keys; refusals %,d counted by the JVMs, %,d in the " +
            "table, %,d unreachable%n", verdict.admitted(), verdict.attempts(), verdict.keys(), verdict.refused(),
            verdict.blocked(), result.degraded(action));
        if (tally != null)
        {
            return clusterVerdict(out, tally, result, verdict.refused(), verdict.blocked() +
                result.degraded(action));
        }
        if (!checkable)
        {
            out.printf("exactness not checked: a token refills every %s, within the run%n",
                Durations.nanos(windowMs * 1_000_000L / perKey));
            out.flush();
            return ExitCode.OK;
        }
        verdict.problems().stream().limit(10).forEach(p -> out.println("  problem: " + p));
        if (!oneWindow)
        {
            out.println("  problem: the run crossed a window boundary");
        }
        final boolean exact = verdict.exact() && oneWindow;
        if (exact && verdict.refused() == 0)
        {
            // every check was admitted and no key reached its limit: "exact" would claim what was not tested
            out.printf("exactness not tested: no check was refused, so no key reached its limit of %,d " +
                "(lower --limit)%n", perKey);
            out.flush();
            return ExitCode.OK;
        }
        out.printf(exact ? "exact: the quotas allow %,d and %,d were admitted%n" :
            "NOT EXACT: the quotas allow %,d but %,d were admitted%n", verdict.expected(), verdict.admitted());
        out.flush();
        return exact ? ExitCode.OK : ExitCode.REFUSED;
    }

    /** With a cluster quota the node's exactness does not apply (the cluster refuses too): judge the cluster's. */
    private static int clusterVerdict(final PrintWriter out, final ClusterTally tally, final LoadResult result,
        final long refused, final long inTable)
    {
        final ClusterStats.Node node = result.cluster();
        final ClusterTally.Verdict verdict = tally.print(out, Exactness.merge(result.workers()), 1,
            new ClusterStats.Checks(node.refused(), node.fallbacksRefused(), node.fallbacksLocal()));
        if (refused != inTable)
        {
            out.printf("WRONG: the JVMs refused %,d, the table counts %,d%n", refused, inTable);
        }
        out.flush();
        return verdict != ClusterTally.Verdict.WRONG && refused == inTable ? ExitCode.OK : ExitCode.REFUSED;
    }
}
