package dev.floodgate.jmh;

import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Renders a run's results: a Markdown table (ns/op per thread count, aggregate throughput, allocation), the
 * issue's targets as ratios within this run, and tab-separated files for the chart. Ratios within one run are
 * what count: absolute times drift on a shared 2-core machine.
 */
final class Report
{
    /** One benchmark at one thread count. */
    record Row(String name, int threads, double nsPerOp, double error, double bytesPerOp)
    {
        double aggregateMops()
        {
            return threads * 1_000.0 / nsPerOp;
        }
    }

    static final List<String> ORDER = List.of(
        "HotKey.checkLimit", "HotKey.checkLimitInCaller", "HotKey.unshardedAtomic",
        "Peer.bucket4jTryConsume", "Peer.guavaTryAcquire", "Peer.resilience4jAcquirePermission",
        "Redis.tokenBucketLua",
        "Unconfigured.checkLimit", "Unconfigured.checkLimitInCaller",
        "Refused.checkLimit", "Refused.checkLimitInCaller",
        "ManyKeys.checkLimit", "ManyKeys.checkLimitInCaller",
        "FreshString.checkLimit", "FreshString.checkLimitInCaller", "FreshString.newStringOnly");

    /** The series of the throughput chart: one hot key, every thread on it. */
    static final List<String> CHART = List.of(
        "HotKey.checkLimitInCaller", "HotKey.checkLimit", "HotKey.unshardedAtomic",
        "Peer.bucket4jTryConsume", "Peer.guavaTryAcquire", "Peer.resilience4jAcquirePermission");

    private final Map<String, Map<Integer, Row>> rows = new TreeMap<>();
    private final TreeSet<Integer> threadCounts = new TreeSet<>();

    Report(final Collection<RunResult> results)
    {
        for (final RunResult result : results)
        {
            final String benchmark = result.getParams().getBenchmark();
            final String[] parts = benchmark.split("\\.");
            final String name = parts[parts.length - 2].replace("Benchmark", "") + "." + parts[parts.length - 1];
            final Result<?> primary = result.getPrimaryResult();
            double bytes = Double.NaN;
            for (final Map.Entry<String, Result> secondary : result.getSecondaryResults().entrySet())
            {
                if (secondary.getKey().endsWith("gc.alloc.rate.norm"))
                {
                    bytes = secondary.getValue().getScore();
                }
            }
            final int threads = result.getParams().getThreads();
            rows.computeIfAbsent(name, k -> new TreeMap<>())
                .put(threads, new Row(name, threads, primary.getScore(), primary.getScoreError(), bytes));
            threadCounts.add(threads);
        }
    }

    Row row(final String name, final int threads)
    {
        final Map<Integer, Row> byThreads = rows.get(name);
        return byThreads == null ? null : byThreads.get(threads);
    }

    private List<String> names()
    {
        final List<String> names = new ArrayList<>();
        for (final String name : ORDER)
        {
            if (rows.containsKey(name))
            {
                names.add(name);
            }
        }
        for (final String name : rows.keySet())
        {
            if (!names.contains(name))
            {
                names.add(name);
            }
        }
        return names;
    }

    String tsv()
    {
        final StringBuilder out = new StringBuilder("benchmark\tthreads\tns_per_op\terror\taggregate_mops\tbytes_per_op\n");
        for (final String name : names())
        {
            for (final Row row : rows.get(name).values())
            {
                out.append(String.format(Locale.ROOT, "%s\t%d\t%.3f\t%.3f\t%.3f\t%.3f%n", name, row.threads,
                    row.nsPerOp, row.error, row.aggregateMops(), row.bytesPerOp));
            }
        }
        return out.toString();
    }

    /** @return threads, then the aggregate Mops/s of each {@link #CHART} series ("NaN" where not run). */
    String throughputTsv()
    {
        final StringBuilder out = new StringBuilder("threads");
        for (final String name : CHART)
        {
            out.append('\t').append(name);
        }
        out.append('\n');
        for (final int threads : threadCounts)
        {
            out.append(threads);
            for (final String name : CHART)
            {
                final Row row = row(name, threads);
                out.append('\t').append(row == null ? "NaN" : String.format(Locale.ROOT, "%.3f", row.aggregateMops()));
            }
            out.append('\n');
        }
        return out.toString();
    }

    String markdown()
    {
        final StringBuilder out = new StringBuilder();
        out.append("Per-call time is JMH AverageTime, ns per call **per thread** (score ± 99.9% CI of one fork); ")
            .append("aggregate Mops/s = threads × 1000 / ns. B/op is `gc.alloc.rate.norm` from `-prof gc`, the ")
            .append("largest over the thread counts. One fork per cell: compare ratios within this run, not ")
            .append("absolute times across runs.\n\n");
        out.append("| benchmark |");
        for (final int t : threadCounts)
        {
            out.append(" ").append(t).append(" thr ns/op |");
        }
        for (final int t : threadCounts)
        {
            out.append(" ").append(t).append(" thr Mops/s |");
        }
        out.append(" B/op |\n|---|");
        out.append("---:|".repeat(threadCounts.size() * 2)).append("---:|\n");
        for (final String name : names())
        {
            out.append("| `").append(name).append("` |");
            double bytes = Double.NaN;
            for (final int t : threadCounts)
            {
                final Row row = row(name, t);
                out.append(' ').append(row == null ? "–" : ns(row.nsPerOp) + (Double.isNaN(row.error) ? "" : " ± " + ns(row.error))).append(" |");
                if (row != null && !Double.isNaN(row.bytesPerOp))
                {
                    bytes = Double.isNaN(bytes) ? row.bytesPerOp : Math.max(bytes, row.bytesPerOp);
                }
            }
            for (final int t : threadCounts)
            {
                final Row row = row(name, t);
                out.append(' ').append(row == null ? "–" : mops(row.aggregateMops())).append(" |");
            }
            out.append(' ').append(Double.isNaN(bytes) ? "–" : bytes(bytes)).append(" |\n");
        }
        out.append('\n').append(targets());
        return out.toString();
    }

    private String targets()
    {
        final StringBuilder out = new StringBuilder("| target (issue 6) | measured in this run | verdict |\n|---|---|---|\n");
        ratio(out, "warm key, 1 thread: `checkLimitInCaller` ≤ 0.6× Bucket4j's time",
            time("HotKey.checkLimitInCaller", 1), time("Peer.bucket4jTryConsume", 1), 0.6, false, "× Bucket4j's time");
        ratio(out, "warm key, 1 thread: `checkLimit` ≤ 1.0× Bucket4j's time",
            time("HotKey.checkLimit", 1), time("Peer.bucket4jTryConsume", 1), 1.0, false, "× Bucket4j's time");
        ratio(out, "hot key, 2 threads: `checkLimitInCaller` aggregate ≥ 5× Bucket4j's",
            agg("HotKey.checkLimitInCaller", 2), agg("Peer.bucket4jTryConsume", 2), 5, true, "× Bucket4j's");
        ratio(out, "hot key, 2 threads: `checkLimitInCaller` aggregate ≥ 1.6× its own 1-thread figure",
            agg("HotKey.checkLimitInCaller", 2), agg("HotKey.checkLimitInCaller", 1), 1.6, true, "× its 1-thread");
        ratio(out, "hot key, 64 threads: `checkLimitInCaller` aggregate ≥ 3× `checkLimit`'s",
            agg("HotKey.checkLimitInCaller", 64), agg("HotKey.checkLimit", 64), 3, true, "× `checkLimit`");
        ratio(out, "hot key, 64 threads: `checkLimitInCaller` aggregate ≥ 5× the unsharded atomic's",
            agg("HotKey.checkLimitInCaller", 64), agg("HotKey.unshardedAtomic", 64), 5, true, "× the atomic");
        for (final String door : List.of("checkLimit", "checkLimitInCaller"))
        {
            final double t = time("Unconfigured." + door, 1);
            out.append("| unconfigured action, `").append(door).append("`, 1 thread: < 5 ns | ")
                .append(Double.isNaN(t) ? "not run" : ns(t) + " ns").append(" | ")
                .append(Double.isNaN(t) ? "–" : t < 5 ? "met" : "**missed** by " + ns(t - 5) + " ns").append(" |\n");
        }
        for (final String door : List.of("checkLimit", "checkLimitInCaller"))
        {
            for (final int threads : List.of(1, 2))
            {
                ratio(out, "refused ≤ 2× admitted, `" + door + "`, " + threads + " thread" + (threads > 1 ? "s" : ""),
                    time("Refused." + door, threads), time("HotKey." + door, threads), 2, false, "× admitted");
            }
        }
        for (final String door : List.of("checkLimit", "checkLimitInCaller"))
        {
            ratio(out, "Redis on loopback, 1 thread: `" + door + "` ≥ 1000× faster per check",
                time("Redis.tokenBucketLua", 1), time("HotKey." + door, 1), 1000, true, "× faster");
        }
        // Warm paths: one cached key, admitted, refused or unconfigured. ManyKeys misses the cache and
        // FreshString makes a string per call, so they are reported on their own rows.
        double worst = Double.NaN;
        String worstName = null;
        for (final String name : names())
        {
            if (!(name.startsWith("HotKey.check") || name.startsWith("Refused.") || name.startsWith("Unconfigured.")))
            {
                continue;
            }
            for (final Row row : rows.get(name).values())
            {
                if (!Double.isNaN(row.bytesPerOp) && (Double.isNaN(worst) || row.bytesPerOp > worst))
                {
                    worst = row.bytesPerOp;
                    worstName = name + " at " + row.threads + " thr";
                }
            }
        }
        out.append("| warm check paths allocate nothing (`gc.alloc.rate.norm`, HotKey, Refused, Unconfigured) | ")
            .append(worstName == null ? "not run (no `-prof gc`?)" : "largest: " + bytes(worst) + " B/op, " + worstName)
            .append(" | ").append(worstName == null ? "–" : worst < 0.5 ? "met" : "**missed**").append(" |\n");
        final Row fresh = row("FreshString.newStringOnly", 1);
        for (final String door : List.of("checkLimit", "checkLimitInCaller"))
        {
            final Row check = row("FreshString." + door, 1);
            if (check != null && fresh != null && !Double.isNaN(check.bytesPerOp))
            {
                out.append("| fresh `String` per call, `").append(door).append("`, 1 thread: the check adds nothing to ")
                    .append("the string's own allocation | ").append(bytes(check.bytesPerOp)).append(" B/op with the ")
                    .append("string, ").append(bytes(fresh.bytesPerOp)).append(" B/op for the string alone | ")
                    .append(check.bytesPerOp <= fresh.bytesPerOp + 0.5 ? "met" : "**missed**").append(" |\n");
            }
        }
        for (final String door : List.of("checkLimit", "checkLimitInCaller"))
        {
            final Row many = row("ManyKeys." + door, 1);
            if (many != null && !Double.isNaN(many.bytesPerOp))
            {
                out.append("| (information) 100k Zipf keys, `").append(door).append("`, 1 thread: allocation of ")
                    .append("address-cache misses | ").append(bytes(many.bytesPerOp)).append(" B/op | – |\n");
            }
        }
        return out.toString();
    }

    private double time(final String name, final int threads)
    {
        final Row row = row(name, threads);
        return row == null ? Double.NaN : row.nsPerOp;
    }

    private double agg(final String name, final int threads)
    {
        final Row row = row(name, threads);
        return row == null ? Double.NaN : row.aggregateMops();
    }

    /**
     * @param atLeast true when {@code a / b} must reach {@code bound}, false when it must stay at or under it.
     */
    private static void ratio(final StringBuilder out, final String target, final double a, final double b,
        final double bound, final boolean atLeast, final String unit)
    {
        out.append("| ").append(target).append(" | ");
        if (Double.isNaN(a) || Double.isNaN(b))
        {
            out.append("not run | – |\n");
            return;
        }
        final double r = a / b;
        final boolean met = atLeast ? r >= bound : r <= bound;
        out.append(String.format(Locale.ROOT, r >= 100 ? "%.0f" : "%.2f", r)).append(unit).append(" | ");
        if (met)
        {
            out.append("met");
        }
        else
        {
            final double factor = atLeast ? bound / r : r / bound;
            out.append(String.format(Locale.ROOT, "**missed** by %.2f×", factor));
        }
        out.append(" |\n");
    }

    private static String ns(final double ns)
    {
        return String.format(Locale.ROOT, ns >= 1000 ? "%,.0f" : ns >= 100 ? "%.0f" : ns >= 10 ? "%.1f" : "%.2f", ns);
    }

    private static String mops(final double mops)
    {
        return String.format(Locale.ROOT, mops >= 100 ? "%.0f" : mops >= 1 ? "%.1f" : "%.4f", mops);
    }

    private static String bytes(final double bytes)
    {
        return String.format(Locale.ROOT, bytes < 0.01 ? "%.0f" : bytes < 10 ? "%.2f" : "%.0f", bytes);
    }
}
