package dev.floodgate.jmh;

import dev.floodgate.BlockedEntry;
import dev.floodgate.Stats;
import dev.floodgate.reader.BlockedCount;
import dev.floodgate.reader.EntryCounts;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.tools.command.StatsCommand;
import dev.floodgate.tools.format.PrometheusText;
import dev.floodgate.tools.table.TableFiles;
import dev.floodgate.tools.table.TableReading;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One scrape of the node's meters: {@code Floodgate.stats()}, the call {@code FloodgateMetrics} makes (at most once a
 * second per binder), over a table of {@link #ENTRIES} entries of both doors (a bucket and a window per identifier)
 * as the monitoring trial measured it (NOTES), and {@link #REFUSED_IDENTIFIERS} of them refused 1 to 7 times each
 * (a bucket and a blocked counter each: {@link #ENTRIES} in all, in a table sized for 120,000). Read
 * {@code gc.alloc.rate.norm} with {@code -prof gc}: the garbage a broker pays per scrape. Beside it, the walk alone:
 * the same count on a reader mapped once ({@code stats()} maps the file anew on every call, as it reads the table by
 * path); {@code topBlocked}, the facade's ranking (many ties: 10,000 counters share 7 counts); and the CLI's
 * {@code stats} in each format and its {@code top}, as the commands run them (a reader opened by path, the report
 * written to a stream that discards it).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class ScrapeBenchmark
{
    static final int IDENTIFIERS = 45_000;
    static final int REFUSED_IDENTIFIERS = 10_000;
    static final int ENTRIES = 2 * IDENTIFIERS + 2 * REFUSED_IDENTIFIERS;
    static final int TOP = 20;

    Fixtures.Gate gate;
    FloodgateReader reader;
    Path file;

    /** The CLI's {@code stats} format: its options {@code --json}, {@code --prometheus}, or neither. */
    @State(Scope.Benchmark)
    public static class Format
    {
        @Param({"text", "json", "prometheus"})
        String format;
    }

    @Setup(Level.Trial)
    public void setUp()
    {
        gate = Fixtures.openAnd(120_000, g ->
        {
            for (int i = 0; i < IDENTIFIERS; i++)
            {
                final String identifier = "user-" + (1_000_000 + i);
                Fixtures.requireAdmitted(g.floodgate.checkLimit(identifier, Fixtures.HOT), "checkLimit");
                Fixtures.requireAdmitted(g.floodgate.checkLimitInCaller(identifier, Fixtures.HOT),
                    "checkLimitInCaller");
                if (i < REFUSED_IDENTIFIERS)
                {
                    // 1 per hour: the first admitted, the rest refused, 1 to 7 refusals (ties on every count)
                    Fixtures.requireAdmitted(g.floodgate.checkLimit(identifier, Fixtures.REFUSED), "checkLimit");
                    for (int refusal = 0; refusal <= i % 7; refusal++)
                    {
                        if (g.floodgate.checkLimit(identifier, Fixtures.REFUSED) == 0)
                        {
                            throw new IllegalStateException("admitted past a limit of 1 per hour: " + identifier);
                        }
                    }
                }
            }
            requireEntries(g.floodgate.stats());
        });
        try
        {
            file = gate.floodgate.config().file();
            reader = FloodgateReader.open(file);
        }
        catch (final RuntimeException ex)
        {
            gate.close(); // JMH runs no tear-down after a failed setup
            throw ex;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        try
        {
            requireEntries(gate.floodgate.stats());
        }
        finally
        {
            reader.close();
            gate.close();
        }
    }

    /** The figures the walk reports: every entry the setup made, each counted once (live or, aged out, tombstoned). */
    private static void requireEntries(final Stats stats)
    {
        if (stats.buckets() + stats.tombstoned() + stats.windowCounters() + stats.blockedEntries() != ENTRIES ||
            stats.blockedEntries() + stats.tombstoned() < REFUSED_IDENTIFIERS)
        {
            throw new IllegalStateException("expected " + ENTRIES + " entries, " + REFUSED_IDENTIFIERS +
                " of them blocked counters, read " + stats);
        }
    }

    @Benchmark
    public Stats stats()
    {
        return gate.floodgate.stats();
    }

    @Benchmark
    public EntryCounts countEntriesOfAnOpenReader()
    {
        return reader.countEntries();
    }

    @Benchmark
    public List<BlockedEntry> topBlocked()
    {
        return gate.floodgate.topBlocked(Fixtures.REFUSED, TOP);
    }

    /** {@code floodgate stats} in the format given, as the command runs it. */
    @Benchmark
    public PrintWriter cliStats(final Format format) throws IOException
    {
        final PrintWriter out = new PrintWriter(OutputStream.nullOutputStream());
        final TableReading report;
        try (FloodgateReader cli = TableFiles.openReader(file))
        {
            report = TableReading.read(cli);
        }
        switch (format.format)
        {
            case "json" -> out.println(StatsCommand.json(report));
            case "prometheus" -> PrometheusText.write(report, OutputStream.nullOutputStream());
            default -> StatsCommand.print(out, report);
        }
        out.flush();
        return out;
    }

    /** {@code floodgate top --action dashboard_api -n 20}: the ranking the command prints. */
    @Benchmark
    public List<BlockedCount> cliTop()
    {
        try (FloodgateReader cli = TableFiles.openReader(file))
        {
            return TableReading.read(cli, Fixtures.REFUSED, TOP).top();
        }
    }
}
