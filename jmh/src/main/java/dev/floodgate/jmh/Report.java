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
 * Renders a run's results: a Markdown table (ns/op per thread count, aggregate throughput, allocation), then
 * the targets ({@link Targets}), and tab-separated files for the chart. Ratios within one run are
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
        "Cluster.nodeCheckLimit", "Cluster.clusterCheckLimit", "Cluster.nodeCheckLimitInCaller",
        "Cluster.clusterCheckLimitInCaller", "Cluster.luaPerCheckLettuce",
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

    /** @return the thread counts run, ascending. */
    TreeSet<Integer> threadCounts()
    {
        return threadCounts;
    }

    Row row(final String name, final int threads)
    {
        final Map<Integer, Row> byThreads = rows.get(name);
        return byThreads == null ? null : byThreads.get(threads);
    }

    /** @return the benchmarks run, in {@link #ORDER} first, then by name. */
    List<String> names()
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
        out.append('\n').append(new Targets(this).markdown());
        return out.toString();
    }

    static String ns(final double ns)
    {
        return String.format(Locale.ROOT, ns >= 1000 ? "%,.0f" : ns >= 100 ? "%.0f" : ns >= 10 ? "%.1f" : "%.2f", ns);
    }

    private static String mops(final double mops)
    {
        return String.format(Locale.ROOT, mops >= 100 ? "%.0f" : mops >= 1 ? "%.1f" : "%.4f", mops);
    }

    static String bytes(final double bytes)
    {
        return String.format(Locale.ROOT, bytes < 0.01 ? "%.0f" : bytes < 10 ? "%.2f" : "%.0f", bytes);
    }
}
