package dev.floodgate.tools.load;

import dev.floodgate.tools.format.TextTable;
import org.HdrHistogram.Histogram;

import java.io.PrintWriter;
import java.util.List;

/** A load run's table of checks per worker JVM, with the total, and the latency of every check it sampled. */
public final class Throughput
{
    private Throughput()
    {
    }

    /** Prints one row per worker and the total. @return every worker's latency samples, merged. */
    public static Histogram print(final PrintWriter out, final List<WorkerProcess> workers)
    {
        final TextTable table = new TextTable(new String[] {"JVM", "PID", "CHECKS", "CHECKS/S", "ADMITTED", "REFUSED"},
            new boolean[] {false, true, true, true, true, true});
        final Histogram all = new Histogram(3);
        long checks = 0;
        long longest = 0;
        long admitted = 0;
        long refused = 0;
        for (final WorkerProcess worker : workers)
        {
            long a = 0;
            long r = 0;
            for (final long[] counts : worker.keys().values())
            {
                a += counts[0];
                r += counts[1];
            }
            table.row("#" + worker.index(), Long.toString(worker.pid()), String.format("%,d", worker.checks()),
                rate(worker.checks(), worker.elapsedNanos()), String.format("%,d", a), String.format("%,d", r));
            checks += worker.checks();
            longest = Math.max(longest, worker.elapsedNanos());
            admitted += a;
            refused += r;
            if (worker.histogram() != null)
            {
                all.add(worker.histogram());
            }
        }
        // the JVMs ran at once: the total is every check over the longest of their times, not a sum of rates
        table.row("total", "", String.format("%,d", checks), rate(checks, longest),
            String.format("%,d", admitted), String.format("%,d", refused));
        table.print(out);
        return all;
    }

    /** @return checks per second, or "-" when no time elapsed (a worker whose threads woke after the end). */
    private static String rate(final long checks, final long elapsedNanos)
    {
        return elapsedNanos <= 0 ? "-" : String.format("%,.0f", checks / (elapsedNanos / 1e9));
    }
}
