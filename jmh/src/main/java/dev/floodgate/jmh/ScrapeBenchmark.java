package dev.floodgate.jmh;

import dev.floodgate.Stats;
import dev.floodgate.reader.EntryCounts;
import dev.floodgate.reader.FloodgateReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * One scrape of the node's meters: {@code Floodgate.stats()}, the call {@code FloodgateMetrics} makes (at most once a
 * second per binder), over a table of {@link #ENTRIES} entries of both doors (a bucket and a window per identifier)
 * in a table sized for 100,000, as the monitoring trial measured it (NOTES). Read {@code gc.alloc.rate.norm} with
 * {@code -prof gc}: the garbage a broker pays per scrape. Beside it, the walk alone: the same count on a reader mapped
 * once ({@code stats()} maps the file anew on every call, as it reads the table by path).
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
    static final int ENTRIES = 2 * IDENTIFIERS;

    Fixtures.Gate gate;
    FloodgateReader reader;

    @Setup(Level.Trial)
    public void setUp()
    {
        gate = Fixtures.openAnd(100_000, g ->
        {
            for (int i = 0; i < IDENTIFIERS; i++)
            {
                final String identifier = "user-" + (1_000_000 + i);
                Fixtures.requireAdmitted(g.floodgate.checkLimit(identifier, Fixtures.HOT), "checkLimit");
                Fixtures.requireAdmitted(g.floodgate.checkLimitInCaller(identifier, Fixtures.HOT),
                    "checkLimitInCaller");
            }
            requireEntries(g.floodgate.stats());
        });
        try
        {
            reader = FloodgateReader.open(gate.floodgate.config().file());
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
        if (stats.buckets() + stats.tombstoned() + stats.windowCounters() != ENTRIES || stats.blockedEntries() != 0)
        {
            throw new IllegalStateException("expected " + ENTRIES + " entries of both doors, read " + stats);
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
}
