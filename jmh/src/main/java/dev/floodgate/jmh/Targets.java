package dev.floodgate.jmh;

import java.util.List;
import java.util.Locale;

/**
 * The performance targets, each a ratio within one run with its verdict, as rows of a Markdown table
 * under {@link Report}'s: absolute times drift on a shared 2-core machine, ratios within a run do not.
 */
final class Targets
{
    private final Report report;

    Targets(final Report report)
    {
        this.report = report;
    }

    /** @return one table row per target: what was measured, and met, missed by how much, or not run. */
    String markdown()
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
                .append(Double.isNaN(t) ? "not run" : Report.ns(t) + " ns").append(" | ")
                .append(Double.isNaN(t) ? "–" : t < 5 ? "met" : "**missed** by " + Report.ns(t - 5) + " ns").append(" |\n");
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
        for (final String door : List.of("CheckLimit", "CheckLimitInCaller"))
        {
            final String name = Character.toLowerCase(door.charAt(0)) + door.substring(1);
            final double node = time("Cluster.node" + door, 1);
            final double cluster = time("Cluster.cluster" + door, 1);
            out.append("| cluster quota (issue 12), warm `").append(name).append("`, 1 thread: within 5 ns of the ")
                .append("node-only check | ");
            if (Double.isNaN(node) || Double.isNaN(cluster))
            {
                out.append("not run | – |\n");
            }
            else
            {
                final double extra = cluster - node;
                out.append(Report.ns(cluster)).append(" ns against ").append(Report.ns(node)).append(" ns: ")
                    .append(String.format(Locale.ROOT, "%+.1f ns, %.2f×", extra, cluster / node)).append(" | ")
                    .append(extra <= 5 ? "met" : "**missed** by " + Report.ns(extra - 5) + " ns").append(" |\n");
            }
            ratio(out, "cluster quota, 1 thread: a per-check Lua call through Lettuce ≥ 1000× the leased `" + name + "`",
                time("Cluster.luaPerCheckLettuce", 1), cluster, 1000, true, "× the leased check");
        }
        // Warm paths: one cached key, admitted, refused or unconfigured. ManyKeys misses the cache and
        // FreshString makes a string per call, so they are reported on their own rows.
        double worst = Double.NaN;
        String worstName = null;
        for (final String name : report.names())
        {
            if (!(name.startsWith("HotKey.check") || name.startsWith("Refused.") || name.startsWith("Unconfigured.")))
            {
                continue;
            }
            for (final int threads : report.threadCounts())
            {
                final Report.Row row = report.row(name, threads);
                if (row != null && !Double.isNaN(row.bytesPerOp()) && (Double.isNaN(worst) || row.bytesPerOp() > worst))
                {
                    worst = row.bytesPerOp();
                    worstName = name + " at " + row.threads() + " thr";
                }
            }
        }
        out.append("| warm check paths allocate nothing (`gc.alloc.rate.norm`, HotKey, Refused, Unconfigured) | ")
            .append(worstName == null ? "not run (no `-prof gc`?)" : "largest: " + Report.bytes(worst) + " B/op, " + worstName)
            .append(" | ").append(worstName == null ? "–" : worst < 0.5 ? "met" : "**missed**").append(" |\n");
        final Report.Row fresh = report.row("FreshString.newStringOnly", 1);
        for (final String door : List.of("checkLimit", "checkLimitInCaller"))
        {
            final Report.Row check = report.row("FreshString." + door, 1);
            if (check != null && fresh != null && !Double.isNaN(check.bytesPerOp()))
            {
                out.append("| fresh `String` per call, `").append(door).append("`, 1 thread: the check adds nothing to ")
                    .append("the string's own allocation | ").append(Report.bytes(check.bytesPerOp())).append(" B/op with the ")
                    .append("string, ").append(Report.bytes(fresh.bytesPerOp())).append(" B/op for the string alone | ")
                    .append(check.bytesPerOp() <= fresh.bytesPerOp() + 0.5 ? "met" : "**missed**").append(" |\n");
            }
        }
        for (final String door : List.of("checkLimit", "checkLimitInCaller"))
        {
            final Report.Row many = report.row("ManyKeys." + door, 1);
            if (many != null && !Double.isNaN(many.bytesPerOp()))
            {
                out.append("| (information) 100k Zipf keys, `").append(door).append("`, 1 thread: allocation of ")
                    .append("address-cache misses | ").append(Report.bytes(many.bytesPerOp())).append(" B/op | – |\n");
            }
        }
        return out.toString();
    }

    private double time(final String name, final int threads)
    {
        final Report.Row row = report.row(name, threads);
        return row == null ? Double.NaN : row.nsPerOp();
    }

    private double agg(final String name, final int threads)
    {
        final Report.Row row = report.row(name, threads);
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
}
