package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.tools.CliException;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.cluster.ClusterBuckets;
import dev.floodgate.tools.cluster.ClusterOptions;
import dev.floodgate.tools.cluster.ClusterQuota;
import dev.floodgate.tools.cluster.ClusterTally;
import dev.floodgate.tools.cluster.ServerConnection;
import dev.floodgate.tools.format.Durations;
import dev.floodgate.tools.load.Lane;
import dev.floodgate.tools.load.LoadOptions;
import dev.floodgate.tools.load.LoadResult;
import dev.floodgate.tools.load.RunObserver;
import dev.floodgate.tools.load.ScratchTable;
import dev.floodgate.tools.load.WindowAlignment;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code floodgate bench}: several JVMs check one door of a scratch table as fast as they can; reports throughput
 * per JVM and in total, latency percentiles, and whether the admissions are exactly what the quotas allow
 * ({@link BenchVerdict}).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
    description = {"Multi-process load on a new scratch table: P JVMs of T threads check one door over K keys " +
        "for a duration D.", "Prints throughput per JVM and in total, latency percentiles (HdrHistogram) and the " +
        "exactness check (exit 1 when admissions differ from what the quotas allow)."})
public final class BenchCommand implements Callable<Integer>
{
    private static final long BUCKET_WINDOW_MS = FloodgateConfig.MAX_WINDOW_MS;
    private static final long WINDOW_WINDOW_MS = 3_600_000L;
    /** Low enough that the keys run out within any run, so the exactness line has refusals to judge. */
    private static final long DEFAULT_WINDOW_LIMIT = 1_000L;
    private static final long[] NICE_LIMITS = {100_000, 50_000, 20_000, 10_000, 5_000, 2_000, 1_000, 500, 200, 100};
    /** A worker's heap besides its per-key counters: the engine's caches, the JIT's, the histograms. */
    private static final long BASE_HEAP_BYTES = 256L << 20;
    /** Per key and load thread: its admitted and refused counters. */
    private static final long COUNTER_BYTES = 16;
    /** Per key: its identifier, shared by the threads (String, its bytes, the array's slot). */
    private static final long KEY_BYTES = 128;
    /** Most threads x keys per worker: 64 MB of counters on top of its heap. */
    static final long MAX_THREAD_KEYS = 4_000_000L;
    /** The longest --duration and --warmup, as typed and as a bound. */
    private static final String MAX_DURATION = "10m";
    private static final long MAX_DURATION_NS = TimeUnit.MINUTES.toNanos(10);
    /** The exact bucket's largest limit (README: 2^34 - 1), for the error of a --limit it cannot represent. */
    private static final long BUCKET_MAX_LIMIT = (1L << 34) - 1;

    @Spec
    private CommandSpec spec;

    @Mixin
    private final LoadOptions load = new LoadOptions(2, 2);

    @Mixin
    private final ClusterOptions cluster = new ClusterOptions();

    @Option(names = "--door", paramLabel = "DOOR", defaultValue = "window",
        description = "bucket (checkLimit) or window (checkLimitInCaller); default ${DEFAULT-VALUE}.")
    private String door;

    @Option(names = "--keys", paramLabel = "K", defaultValue = "16", description = "Identifiers, 1 to 1,000,000, " +
        "and --keys x --threads at most 4,000,000: each thread counts every key (default ${DEFAULT-VALUE}).")
    private long keys;

    @Option(names = "--duration", paramLabel = "D", defaultValue = "5s",
        description = "Run length, 1ms to " + MAX_DURATION + ": " + Durations.FORMS + ", e.g. 5s, 1500ms, 2m " +
            "(default ${DEFAULT-VALUE}).")
    private String duration;

    @Option(names = "--warmup", paramLabel = "W",
        description = "Before the run, each JVM makes the same checks under another action for W, so that the " +
            "run measures the engine rather than the JIT compiling it; 1ms to " + MAX_DURATION + ": " +
            Durations.FORMS + " (default: none, the run includes the JIT's warm-up).")
    private String warmup;

    @Option(names = "--limit", paramLabel = "L",
        description = "Per-key limit. Default: window 1,000 per hour; bucket the largest round limit per 7 " +
            "days whose next token comes after the run ends, so the expectation stays exact.")
    private Long limit;

    @Override
    public Integer call()
    {
        final Lane.Door chosen = parseDoor();
        final long durationNs = parseDuration("--duration", duration);
        final long warmupNs = warmup == null ? 0 : parseDuration("--warmup", warmup);
        load.validate(spec);
        LoadOptions.requireRange(spec, "--keys", keys, 1, 1_000_000);
        if (keys * load.threads() > MAX_THREAD_KEYS)
        {
            // each load thread counts every key: the worker's heap grows with their product
            throw new ParameterException(spec.commandLine(), "--keys " + keys + " with --threads " + load.threads() +
                ": each thread of a worker JVM counts every key, " + String.format("%,d", keys * load.threads()) +
                " counters; expected --keys x --threads at most " + String.format("%,d", MAX_THREAD_KEYS) +
                " (fewer keys or threads)");
        }
        final boolean bucket = chosen == Lane.Door.BUCKET;
        final Action action = bucket ? Action.AUTH : Action.PUBLISH;
        final long windowMs = bucket ? BUCKET_WINDOW_MS : WINDOW_WINDOW_MS;
        final ClusterQuota quota = cluster.quota(spec, action);
        final long perKey = limit != null ? limit : bucket ? bucketLimit(durationNs) : quota != null ?
            Math.min(FloodgateConfig.MAX_LIMIT, Math.max(DEFAULT_WINDOW_LIMIT, 10 * quota.limit())) : DEFAULT_WINDOW_LIMIT;
        if (quota != null && perKey < quota.limit())
        {
            throw new ParameterException(spec.commandLine(), "--cluster-limit " + quota.limit() + ": expected at " +
                "most the node's limit per key, " + perKey + ", which would bind first (raise --limit)");
        }
        if (perKey < 1 || perKey > FloodgateConfig.MAX_LIMIT)
        {
            throw new ParameterException(spec.commandLine(), "--limit " + perKey + ": expected 1 to " +
                FloodgateConfig.MAX_LIMIT);
        }
        if (bucket && !FloodgateConfig.isExactBucketRate(perKey, windowMs))
        {
            // inside the range above, so say what the bucket itself needs (the configuration's rule)
            throw new ParameterException(spec.commandLine(), "--limit " + perKey + ": the token bucket cannot " +
                "represent " + perKey + " per " + windowMs + " ms exactly; expected at most " + BUCKET_MAX_LIMIT +
                " with limit / gcd(limit, window in ns) at most 1024 (e.g. 1000 or 1024)");
        }
        final String notAnswering = quota == null ? null : ServerConnection.whyNotAnswering(quota.uri());
        if (notAnswering != null)
        {
            // at once, rather than a minute later as a worker that never connected; with the reason, as a wrong
            // password or database is not a server that is down
            throw new CliException(ExitCode.REFUSED, "--cluster-redis " + quota.shownUri() + ": no Redis answers " +
                "there (PING: " + notAnswering + "); expected a running redis-server that accepts this URI");
        }
        // Exact only when no token comes back during the run: one window for the window door, and for the bucket
        // an emission interval (window / limit) longer than the run.
        final BenchVerdict verdict = new BenchVerdict(action, perKey, windowMs,
            !bucket || windowMs * 1_000_000L / perKey > durationNs + TimeUnit.SECONDS.toNanos(1));
        final WindowAlignment alignment = bucket ? null : new WindowAlignment(windowMs, durationNs);
        final PrintWriter out = spec.commandLine().getOut();
        // Sized like a production table: the engine sizes each process's key cache from the capacity.
        final long capacity = Math.max(FloodgateConfig.DEFAULT_CAPACITY, 4L * keys + 100);
        try (ScratchTable scratch = load.scratch(capacity, "floodgate-bench-", sharedMemory()))
        {
            final String prefix = quota == null ? "key-" : ClusterBuckets.runPrefix();
            final Lane lane = new Lane(chosen, action, load.threads(), 0, prefix, Math.toIntExact(keys));
            out.printf("Floodgate bench: %d JVMs x %d threads, %s door (%s) on %,d keys, limit %,d per %s per key, " +
                "for %s%n", load.processes(), load.threads(), chosen.name().toLowerCase(Locale.ROOT),
                bucket ? "checkLimit" : "checkLimitInCaller", keys, perKey, Durations.nanos(windowMs * 1_000_000L),
                Durations.nanos(durationNs));
            out.printf("  table %s (%d shards)%n", scratch.file(), scratch.shards());
            if (load.keep())
            {
                out.printf("  logs %s (kept, as the table: the workers' standard error)%n", scratch.dir());
            }
            out.flush();
            final List<String> args = new java.util.ArrayList<>(List.of("--file", scratch.file().toString(),
                "--capacity", Long.toString(capacity), "--lane", lane.format(),
                "--limit", action.configPrefix() + "=" + perKey + "/" + windowMs, "--latency"));
            if (warmupNs > 0)
            {
                // the same checks under the other action of the door's pair: the measured action's entries and
                // counters see only the run
                final Action twin = bucket ? Action.DASHBOARD_AUTH : Action.SUBSCRIBE;
                out.printf("  each JVM first warms up for %s with the same checks of %s%n", Durations.nanos(warmupNs),
                    twin.name());
                args.addAll(List.of("--warmup-ms", Long.toString(TimeUnit.NANOSECONDS.toMillis(warmupNs)),
                    "--warmup-action", twin.configPrefix(), "--limit", twin.configPrefix() + "=" + perKey + "/" + windowMs));
            }
            final ClusterTally[] tally = new ClusterTally[1];
            if (quota != null)
            {
                out.printf("  cluster quota %,d per %s per key from %s, leased %,d at a time%n", quota.limit(),
                    Durations.nanos(quota.windowMs() * 1_000_000L), quota.shownUri(), quota.lease());
                args.addAll(quota.workerArgs());
            }
            final LoadResult result = LoadResult.run(load, scratch, workerJvm(), args, durationNs, warmupNs,
                alignment, out, new RunObserver()
                {
                    @Override
                    public void released(final long startNanos, final long endNanos)
                    {
                        tally[0] = quota == null ? null : ClusterTally.begin(quota, startNanos, endNanos);
                    }

                    @Override
                    public void ended()
                    {
                        if (tally[0] != null)
                        {
                            tally[0].end();
                        }
                    }

                    @Override
                    public void stopped()
                    {
                        if (quota != null)
                        {
                            // also on Ctrl-C, from the shutdown hook (found by review: a finally never ran there)
                            ClusterBuckets.delete(quota, action, prefix, System.err);
                        }
                    }
                });
            return verdict.report(out, result, tally[0]);
        }
    }

    /** @return the workers' JVM options: a heap for the engine plus the counters of every key in every thread. */
    private List<String> workerJvm()
    {
        final long bytes = BASE_HEAP_BYTES + COUNTER_BYTES * keys * load.threads() + KEY_BYTES * keys;
        return List.of("-Xmx" + ((bytes + (1 << 20) - 1) >> 20) + "m");
    }

    private Lane.Door parseDoor()
    {
        try
        {
            return Lane.Door.valueOf(door.trim().toUpperCase(Locale.ROOT));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(), "--door '" + door + "': expected bucket or window");
        }
    }

    private long parseDuration(final String option, final String text)
    {
        try
        {
            final long nanos = Durations.parse(text);
            if (nanos > MAX_DURATION_NS)
            {
                throw new IllegalArgumentException("'" + text + "': expected at most " + MAX_DURATION);
            }
            return nanos;
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(), option + " " + ex.getMessage());
        }
    }

    /** The largest round limit whose emission interval over 7 days exceeds the run by a minute. */
    private static long bucketLimit(final long durationNs)
    {
        final long windowNs = BUCKET_WINDOW_MS * 1_000_000L;
        for (final long candidate : NICE_LIMITS)
        {
            if (windowNs / candidate > durationNs + TimeUnit.MINUTES.toNanos(1) && FloodgateConfig.isExactBucketRate(candidate,
                BUCKET_WINDOW_MS))
            {
                return candidate;
            }
        }
        return 10;
    }

    /**
     * @return {@code /dev/shm} where it is a writable directory, else null (the system's temporary directory). A
     * broker's table lives there by default; a table on a disk file system (ext4 under {@code /tmp}) measures its
     * page faults and write-back instead (NOTES.md, "The cold path, third step").
     */
    private static Path sharedMemory()
    {
        final Path shm = Path.of("/dev/shm");
        return Files.isDirectory(shm) && Files.isWritable(shm) ? shm : null;
    }

}
