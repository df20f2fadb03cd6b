package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableEntry;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.cluster.ClusterQuota;
import dev.floodgate.tools.cluster.ClusterTally;
import dev.floodgate.tools.cluster.LocalRedisServer;
import dev.floodgate.tools.format.TextTable;
import dev.floodgate.tools.load.Exactness;
import dev.floodgate.tools.load.Lane;
import dev.floodgate.tools.load.LoadOptions;
import dev.floodgate.tools.load.LoadRun;
import dev.floodgate.tools.load.RunObserver;
import dev.floodgate.tools.load.ScratchTable;
import dev.floodgate.tools.load.WorkerProcess;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * {@code floodgate demo --cluster}: three nodes (three table files, a worker JVM each) hammer one identifier of a
 * clustered action; the cluster quota is leased from a redis-server the demo starts and stops itself. Prints what
 * each node admitted and the total against the cluster's allowance: EXACT, WITHIN (the leases the nodes held
 * unspent) or WRONG.
 */
final class ClusterDemo
{
    /** A day: a run of a few seconds refills no whole token, so the allowance is the limit itself. */
    static final long CLUSTER_WINDOW_MS = 86_400_000L;
    private static final long NODE_WINDOW_MS = 3_600_000L;
    /** Each node's own quota, far above the cluster's: the cluster is what binds. */
    private static final long NODE_LIMIT = 16_000_000L;
    private static final Action ACTION = Action.PUBLISH;
    private static final String USER = "alice";
    private static final List<String> WORKER_JVM = List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    private ClusterDemo()
    {
    }

    /**
     * @param out     where the demo prints.
     * @param load    nodes ({@code --processes}) and threads per node.
     * @param seconds run length.
     * @param limit   the cluster limit per day.
     * @param lease   tokens leased at a time, 0 for a tenth of the limit.
     * @param usage   makes a usage error.
     * @return the exit code: OK for EXACT or WITHIN, REFUSED for WRONG.
     */
    static int run(final PrintWriter out, final LoadOptions load, final int seconds, final long limit,
        final long lease, final Function<String, RuntimeException> usage)
    {
        final int nodes = load.processes();
        // the options first: a usage error names the option, rather than whatever starting (or installing) a
        // redis-server runs into; the URI is the server's, not yet known, so any valid one stands for it here
        ClusterQuota.of("redis://127.0.0.1:6379/0", ACTION, limit, CLUSTER_WINDOW_MS, lease, usage);
        final List<ScratchTable> tables = new ArrayList<>();
        try (LocalRedisServer redis = LocalRedisServer.start())
        {
            final ClusterQuota quota = ClusterQuota.of(redis.uri(), ACTION, limit, CLUSTER_WINDOW_MS, lease, usage);
            for (int n = 1; n <= nodes; n++)
            {
                tables.add(ScratchTable.create(null, 10_000, "floodgate-demo-node" + n + "-", null));
                tables.get(n - 1).keep(load.keep());
            }
            final Lane lane = new Lane(Lane.Door.WINDOW, ACTION, load.threads(), 0, USER, 1);
            out.printf("Floodgate cluster demo: %d nodes (a table file and a broker JVM each) share one cluster " +
                "quota leased from Redis.%n", nodes);
            out.printf("  redis    %s (started for the demo, no persistence, stopped at the end)%n", redis.uri());
            for (int n = 1; n <= nodes; n++)
            {
                out.printf("  node %d   %s%n", n, tables.get(n - 1).file());
            }
            out.printf("  publish  user '%s' may produce %,d per day over every node, leased %,d at a time; %d " +
                "threads per node call checkLimitInCaller; each node's own quota (%,d per hour) is not reached%n",
                USER, quota.limit(), quota.lease(), load.threads(), NODE_LIMIT);
            final ClusterTally[] tally = new ClusterTally[1];
            final List<WorkerProcess> workers = LoadRun.run(nodes, load.mainClass(), WORKER_JVM,
                i -> args(tables.get(i - 1), lane, quota), tables.get(0).dir(), TimeUnit.SECONDS.toNanos(seconds), 0,
                earliest -> earliest, out,
                new RunObserver()
                {
                    @Override
                    public void released(final long startNanos, final long endNanos)
                    {
                        tally[0] = ClusterTally.begin(quota, startNanos, endNanos);
                    }

                    @Override
                    public void ended()
                    {
                        tally[0].end();
                    }
                });
            out.println();
            final long[] refusals = printPerNode(out, workers, tables);
            out.println();
            final ClusterTally.Verdict verdict = tally[0].print(out, Exactness.merge(workers), nodes,
                new ClusterStats.Checks(refusals[3], refusals[4], refusals[5]));
            final boolean counted = refusals[0] == refusals[1] + refusals[2];
            out.printf("refusals %,d counted by the JVMs, %,d in the nodes' blocked counters, %,d unreachable%s%n",
                refusals[0], refusals[1], refusals[2], counted ? "" : " - WRONG, they should add up");
            final boolean ok = verdict != ClusterTally.Verdict.WRONG && counted;
            out.println(!ok ? "FAILED: the nodes' total does not match the cluster quota." :
                verdict == ClusterTally.Verdict.NOT_TESTED ? "OK, but the cluster quota was not tested: no " +
                    "identifier reached it (lower --cluster-limit)." :
                "OK: " + nodes + " nodes together stayed within the cluster quota.");
            out.flush();
            return ok ? ExitCode.OK : ExitCode.REFUSED;
        }
        finally
        {
            tables.forEach(ScratchTable::close);
        }
    }

    private static List<String> args(final ScratchTable table, final Lane lane, final ClusterQuota quota)
    {
        final List<String> args = new ArrayList<>(List.of("--file", table.file().toString(), "--capacity", "10000",
            "--lane", lane.format(), "--limit", ACTION.configPrefix() + "=" + NODE_LIMIT + "/" + NODE_WINDOW_MS));
        args.addAll(quota.workerArgs());
        return args;
    }

    /**
     * @return refusals counted by the workers, in the tables' blocked counters, unreachable; then the nodes' checks
     * the cluster refused, refused for want of a lease, and admitted locally for want of one.
     */
    private static long[] printPerNode(final PrintWriter out, final List<WorkerProcess> workers,
        final List<ScratchTable> tables)
    {
        final TextTable table = new TextTable(new String[] {"NODE", "PID", "CHECKS", "ADMITTED", "REFUSED", "BLOCKED"},
            new boolean[] {false, true, true, true, true, true});
        final long[] sums = new long[8];
        for (final WorkerProcess worker : workers)
        {
            long admitted = 0;
            long refused = 0;
            for (final long[] counts : worker.keys().values())
            {
                admitted += counts[0];
                refused += counts[1];
            }
            long blocked = 0;
            long degraded;
            try (FloodgateReader reader = FloodgateReader.open(tables.get(worker.index() - 1).file()))
            {
                final List<TableEntry> entries = reader.entries();
                final ClusterStats.Node cluster = reader.cluster(entries);
                sums[5] += cluster.refused();
                sums[6] += cluster.fallbacksRefused();
                sums[7] += cluster.fallbacksLocal();
                for (final TableEntry entry : entries)
                {
                    if (entry.kind() == EntryKind.BLOCKED && entry.action() == ACTION && !entry.tombstoned())
                    {
                        blocked += entry.blocked();
                    }
                }
                degraded = reader.counters().degraded().get(ACTION);
            }
            table.row("#" + worker.index(), Long.toString(worker.pid()), String.format("%,d", worker.checks()),
                String.format("%,d", admitted), String.format("%,d", refused), String.format("%,d", blocked));
            sums[0] += worker.checks();
            sums[1] += admitted;
            sums[2] += refused;
            sums[3] += blocked;
            sums[4] += degraded;
        }
        table.row("total", "", String.format("%,d", sums[0]), String.format("%,d", sums[1]),
            String.format("%,d", sums[2]), String.format("%,d", sums[3]));
        table.print(out);
        return new long[] {sums[2], sums[3], sums[4], sums[5], sums[6], sums[7]};
    }
}
