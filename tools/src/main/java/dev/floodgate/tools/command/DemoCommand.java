package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.reader.TableEntry;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.format.TextTable;
import dev.floodgate.tools.load.Exactness;
import dev.floodgate.tools.load.Lane;
import dev.floodgate.tools.load.LoadOptions;
import dev.floodgate.tools.load.LoadResult;
import dev.floodgate.tools.load.ScratchTable;
import dev.floodgate.tools.load.WindowAlignment;
import dev.floodgate.tools.load.WorkerProcess;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code floodgate demo}: three broker-like JVMs share one table and hammer two quotas at once; the totals
 * come out exactly at the quotas. One screen that shows a newcomer what Floodgate does.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = {"Starts broker-like JVMs that share one new table and hammer it for a few seconds: many " +
        "threads publish as one user (sharded window door), a few IPs fail logins (exact token bucket door).",
        "Prints what each JVM admitted and refused, checks that the totals are exactly the quotas (exit 1 if " +
        "not), and ends with a dump. Uses a temporary directory, removed afterwards."})
public final class DemoCommand implements Callable<Integer>
{
    /** The publish and auth windows: one hour, so the whole run sits in one window and no token refills. */
    static final long WINDOW_MS = 3_600_000L;
    private static final String PUBLISHER = "alice";
    /** The demo shows exactness, not speed: C1 only and a small heap start three JVMs about twice as fast. */
    private static final List<String> WORKER_JVM = List.of("-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");
    private static final String IP_PREFIX = "203.0.113.";

    @Spec
    private CommandSpec spec;

    @Mixin
    private final LoadOptions load = new LoadOptions(3, 4);

    @Option(names = "--seconds", paramLabel = "S", defaultValue = "3", description = "Run length (default ${DEFAULT-VALUE}).")
    private long seconds;

    @Option(names = "--publish-limit", paramLabel = "N", defaultValue = "50000",
        description = "alice's produce requests per hour, over every JVM (default ${DEFAULT-VALUE}).")
    private long publishLimit;

    @Option(names = "--ips", paramLabel = "N", defaultValue = "4", description = "Attacking IPs (default ${DEFAULT-VALUE}).")
    private long ips;

    @Option(names = "--auth-limit", paramLabel = "N", defaultValue = "10",
        description = "Login attempts per IP per hour (default ${DEFAULT-VALUE}).")
    private long authLimit;

    @Option(names = "--cluster", description = "The cluster variant: each JVM is a node with its own table, all " +
        "hammer one identifier whose quota is shared by the cluster and leased from a redis-server the demo starts " +
        "(installed by tools/redis-server-ensure when absent) and stops.")
    private boolean cluster;

    @Option(names = "--cluster-limit", paramLabel = "N", defaultValue = "3000",
        description = "With --cluster: alice's produce requests per day over every node (default ${DEFAULT-VALUE}).")
    private long clusterLimit;

    @Option(names = "--cluster-lease", paramLabel = "N", defaultValue = "100",
        description = "With --cluster: tokens a node leases at a time, 0 for a tenth of the limit (default " +
            "${DEFAULT-VALUE}).")
    private long clusterLease;

    @Override
    public Integer call()
    {
        load.validate(spec);
        LoadOptions.requireRange(spec, "--seconds", seconds, 1, 600);
        for (final String option : new String[] {"--cluster-limit", "--cluster-lease"})
        {
            if (!cluster && spec.commandLine().getParseResult().hasMatchedOption(option))
            {
                throw new ParameterException(spec.commandLine(), option + ": only with --cluster; without it the " +
                    "demo runs the node's quotas alone");
            }
        }
        if (cluster)
        {
            for (final String option : new String[] {"--ips", "--publish-limit", "--auth-limit"})
            {
                if (spec.commandLine().getParseResult().hasMatchedOption(option))
                {
                    throw new ParameterException(spec.commandLine(), option + ": not with --cluster, whose nodes " +
                        "hammer one identifier's cluster quota (--cluster-limit, --cluster-lease) and no login " +
                        "quota; without --cluster the demo runs the node's quotas");
                }
            }
            if (load.file() != null)
            {
                throw new ParameterException(spec.commandLine(), "--file " + load.file() + ": not with --cluster, " +
                    "whose nodes each make their own table in a temporary directory");
            }
            return ClusterDemo.run(spec.commandLine().getOut(), load, Math.toIntExact(seconds), clusterLimit,
                clusterLease, message -> new ParameterException(spec.commandLine(), message));
        }
        LoadOptions.requireRange(spec, "--ips", ips, 1, 1000);
        LoadOptions.requireRange(spec, "--publish-limit", publishLimit, 1, FloodgateConfig.MAX_LIMIT);
        LoadOptions.requireRange(spec, "--auth-limit", authLimit, 1, FloodgateConfig.MAX_LIMIT);
        final long tokenBackSeconds = WINDOW_MS / 1000 / authLimit;
        if (tokenBackSeconds <= seconds + 60L)
        {
            // the exact expectation needs no token back during the run (a minute allowed for its start): one per
            // WINDOW_MS / authLimit. Both options are named: `demo --seconds 300` named only --auth-limit, its default
            final long maxSeconds = tokenBackSeconds - 61L;
            throw new ParameterException(spec.commandLine(), "--auth-limit " + authLimit + " with --seconds " +
                seconds + ": a login token would come back during the run (one every " + tokenBackSeconds +
                " s, a run may take a minute more than --seconds to start); expected --auth-limit at most " +
                WINDOW_MS / 1000 / (seconds + 61L) + (maxSeconds >= 1 ? ", or --seconds at most " + maxSeconds : ""));
        }
        final PrintWriter out = spec.commandLine().getOut();
        final long durationNs = TimeUnit.SECONDS.toNanos(seconds);
        final WindowAlignment alignment = new WindowAlignment(WINDOW_MS, durationNs);
        try (ScratchTable scratch = load.scratch(10_000, "floodgate-demo-", null))
        {
            final int processes = load.processes();
            final int threads = load.threads();
            final Lane publish = new Lane(Lane.Door.WINDOW, Action.PUBLISH, threads, 0, PUBLISHER, 1);
            final Lane auth = new Lane(Lane.Door.BUCKET, Action.AUTH, 1, 1000, IP_PREFIX, Math.toIntExact(ips));
            out.printf("Floodgate demo: %d broker JVMs share one rate-limit table in shared memory.%n", processes);
            out.printf("  table    %s (%d shards)%n", scratch.file(), scratch.shards());
            if (load.keep())
            {
                out.printf("  logs     %s (kept, as the table: the workers' standard error)%n", scratch.dir());
            }
            out.printf("  publish  user '%s' may produce %,d per hour in total; %d threads per JVM call " +
                "checkLimitInCaller (sharded window, no lock)%n", PUBLISHER, publishLimit, threads);
            out.printf("  auth     each of %d IPs may try %d logins per hour; one thread per JVM fails a login " +
                "every ms through checkLimit (exact token bucket)%n", ips, authLimit);
            final List<String> args = List.of("--file", scratch.file().toString(), "--capacity", "10000",
                "--lane", publish.format(), "--lane", auth.format(),
                "--limit", "publish=" + publishLimit + "/" + WINDOW_MS, "--limit", "auth=" + authLimit + "/" + WINDOW_MS);
            final LoadResult result = LoadResult.run(load, scratch, WORKER_JVM, args, durationNs, alignment, out);
            final List<WorkerProcess> workers = result.workers();
            final List<TableEntry> entries = result.entries();
            final Map<String, Exactness.KeyTotal> totals = Exactness.merge(workers);
            out.println();
            printPerJvm(out, workers);
            out.println();
            final Exactness.Verdict publishVerdict = Exactness.check(Action.PUBLISH, publishLimit, totals, entries,
                result.degraded(Action.PUBLISH));
            final Exactness.Verdict authVerdict = Exactness.check(Action.AUTH, authLimit, totals, entries,
                result.degraded(Action.AUTH));
            final boolean oneWindow = result.oneWindow();
            out.printf("publish  %s: %,d admitted of %,d attempts; the quota allows %,d%s%n", PUBLISHER,
                publishVerdict.admitted(), publishVerdict.attempts(), publishVerdict.expected(),
                verdictWord(publishVerdict));
            out.printf("auth     %d IPs: %,d admitted of %,d attempts; the quota allows %,d (%d each)%s%n",
                authVerdict.keys(), authVerdict.admitted(), authVerdict.attempts(), authVerdict.expected(), authLimit,
                verdictWord(authVerdict));
            // every refusal is in a blocked counter or, when its entry was unreachable in time, counted as such
            out.printf("refusals %,d counted by the JVMs, %,d in the table's blocked counters, %,d unreachable%n",
                publishVerdict.refused() + authVerdict.refused(), publishVerdict.blocked() + authVerdict.blocked(),
                result.degraded(Action.PUBLISH) + result.degraded(Action.AUTH));
            final boolean exact = publishVerdict.exact() && authVerdict.exact() && oneWindow;
            for (final String problem : publishVerdict.problems())
            {
                out.println("  problem: " + problem);
            }
            for (final String problem : authVerdict.problems())
            {
                out.println("  problem: " + problem);
            }
            if (!oneWindow)
            {
                out.println("  problem: the run crossed a window boundary");
            }
            final boolean tested = publishVerdict.refused() > 0 && authVerdict.refused() > 0;
            out.println(!exact ? "FAILED: the totals do not match the quotas." : tested ?
                "OK: " + processes + " JVMs together admitted exactly what the quotas allow." :
                "OK, but exactness not tested where a quota refused nothing (lower its limit).");
            out.println();
            out.println("floodgate dump --file " + scratch.file() + (load.keep() ? "" : "   (removed when the demo ends)"));
            DumpCommand.print(out, entries.stream().filter(e -> !e.tombstoned()).sorted(DumpCommand.ORDER).toList(),
                result.states()::get);
            out.flush();
            return exact ? ExitCode.OK : ExitCode.REFUSED;
        }
    }

    /** As bench says it: a quota that refused nothing was never reached, so "exact" would claim what was not shown. */
    private static String verdictWord(final Exactness.Verdict verdict)
    {
        return !verdict.exact() ? " - WRONG" : verdict.refused() == 0 ? " - exactness not tested: nothing refused" :
            " - exact";
    }

    private static void printPerJvm(final PrintWriter out, final List<WorkerProcess> workers)
    {
        final TextTable table = new TextTable(
            new String[] {"JVM", "PID", "PUBLISH ADMITTED", "PUBLISH REFUSED", "AUTH ADMITTED", "AUTH REFUSED"},
            new boolean[] {false, true, true, true, true, true});
        final long[] sum = new long[4];
        for (final WorkerProcess worker : workers)
        {
            final long[] counts = new long[4];
            for (final Map.Entry<String, long[]> key : worker.keys().entrySet())
            {
                final int base = key.getKey().startsWith("publish ") ? 0 : 2;
                counts[base] += key.getValue()[0];
                counts[base + 1] += key.getValue()[1];
            }
            for (int i = 0; i < 4; i++)
            {
                sum[i] += counts[i];
            }
            table.row("#" + worker.index(), Long.toString(worker.pid()), String.format("%,d", counts[0]),
                String.format("%,d", counts[1]), String.format("%,d", counts[2]), String.format("%,d", counts[3]));
        }
        table.row("total", "", String.format("%,d", sum[0]), String.format("%,d", sum[1]),
            String.format("%,d", sum[2]), String.format("%,d", sum[3]));
        table.print(out);
    }
}
