package dev.floodgate.jmh;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.Stats;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * What a janitor pass costs the cold checks beside it, through the API: in a table of 100,000 holding 50,000 buckets
 * made by checks, group {@code besideJanitor} runs {@link Floodgate#cleanup()} (one janitor pass) back to back on one
 * thread while another makes cold checks; group {@code alone} makes the same cold checks with no pass running, the
 * peer. A cold check here is the check of an identifier {@link Floodgate#reset} just tombstoned (the reset is the
 * invocation's setup, outside the timing), so it revives the entry under its segment's guard as an insert would,
 * without the table growing through the trial. Compare {@code coldCheck} with {@code coldCheckAlone} (with
 * {@code -bm sample} for the tail); a check given up after 50 ms waiting for a segment is degraded (counted, printed
 * at the trial's end) and costs those 50 ms.
 *
 * <p>Every bucket is left in debt for minutes (one token of 10 per hour spent), so the janitor finds none idle: each
 * pass judges the same 54,096 entries and decides nothing, and the table is the same from the first pass to the last.
 * {@code jmh/run} runs it only when named; each group opens its own table, so run it at one group ({@code -t 1},
 * rounded up to 2 for {@code besideJanitor}).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Group)
public class ScanHoldBenchmark
{
    static final int SCANNED = 50_000;
    /** The cold checks' identifiers, spread over the segments; a power of two. */
    static final int COLD = 4_096;
    /** A login control: refused while unreachable, so a check given up is seen (as degraded), never admitted unsaid. */
    static final Action ACTION = Action.AUTH;
    static final long LIMIT = 10;
    /** A token refills in 6 minutes: no bucket checked in the trial is full (idle) before the trial ends. */
    static final long WINDOW_MS = 3_600_000;

    Fixtures.Gate gate;
    String[] cold;
    long reaped;

    /** The next cold identifier of one thread, tombstoned by a reset before each check. */
    @State(Scope.Thread)
    public static class ColdKey
    {
        int next;
        String identifier;

        @Setup(Level.Invocation)
        public void forget(final ScanHoldBenchmark benchmark)
        {
            identifier = benchmark.cold[next++ & (COLD - 1)];
            benchmark.gate.floodgate.reset(identifier, ACTION);
        }
    }

    @Setup(Level.Trial)
    public void setUp()
    {
        final Path dir = Fixtures.tempDir();
        try
        {
            final FloodgateConfig config = FloodgateConfig.builder()
                .file(dir.resolve("floodgate.map"))
                .capacity(100_000)
                .limit(ACTION, LIMIT, WINDOW_MS)
                // no scheduled pass in either group: the only passes are the scanning thread's
                .cleanupIntervalMs(FloodgateConfig.MAX_CLEANUP_INTERVAL_MS)
                .build();
            gate = new Fixtures.Gate(dir, Floodgate.open(config));
        }
        catch (final RuntimeException | Error ex)
        {
            Fixtures.deleteTree(dir);
            throw ex;
        }
        try
        {
            for (int i = 0; i < SCANNED; i++)
            {
                Fixtures.requireAdmitted(gate.floodgate.checkLimit(address(1, i), ACTION), "checkLimit");
            }
            cold = new String[COLD];
            for (int i = 0; i < COLD; i++)
            {
                cold[i] = address(2, i);
                Fixtures.requireAdmitted(gate.floodgate.checkLimit(cold[i], ACTION), "checkLimit");
            }
        }
        catch (final RuntimeException | Error ex)
        {
            // JMH runs no tear-down after a failed setup
            gate.close();
            throw ex;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        try
        {
            final Stats stats = gate.floodgate.stats();
            if (reaped != 0 || stats.entries() != SCANNED + COLD)
            {
                throw new IllegalStateException("the passes reaped " + reaped + " entries and the table holds " +
                    stats.entries() + ", expected none reaped and " + (SCANNED + COLD) + ": the passes did not " +
                    "judge the same table throughout");
            }
            System.out.println("NOTE: " + stats.degradedChecks() + " cold checks degraded (given up after 50 ms)");
        }
        finally
        {
            gate.close();
        }
    }

    @Benchmark
    @Group("besideJanitor")
    @GroupThreads(1)
    public int janitorPass()
    {
        final int n = gate.floodgate.cleanup();
        reaped += n;
        return n;
    }

    @Benchmark
    @Group("besideJanitor")
    @GroupThreads(1)
    public long coldCheck(final ColdKey key)
    {
        return gate.floodgate.checkLimit(key.identifier, ACTION);
    }

    @Benchmark
    @Group("alone")
    @GroupThreads(1)
    public long coldCheckAlone(final ColdKey key)
    {
        return gate.floodgate.checkLimit(key.identifier, ACTION);
    }

    /** @return the IPv4 address {@code 10.net.*.*} numbered {@code i}, as a login's client would be keyed. */
    private static String address(final int net, final int i)
    {
        return "10." + net + "." + (i >> 8) + "." + (i & 255);
    }
}
