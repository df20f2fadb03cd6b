package dev.floodgate.jmh;

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
 * An action left at limit 0 (switched off): the check must return before touching the table. Target: under
 * 5 ns in either door.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class UnconfiguredBenchmark
{
    Fixtures.Gate gate;

    @Setup(Level.Trial)
    public void setUp()
    {
        gate = Fixtures.openAnd(1024, g -> Fixtures.requireAdmitted(
            g.floodgate.checkLimit(HotKeyBenchmark.USER, Fixtures.UNCONFIGURED), "unconfigured checkLimit"));
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        try
        {
            if (gate.floodgate.stats().entries() != 0)
            {
                throw new IllegalStateException("an unconfigured action created entries in the table");
            }
        }
        finally
        {
            gate.close();
        }
    }

    @Benchmark
    public long checkLimit()
    {
        return gate.floodgate.checkLimit(HotKeyBenchmark.USER, Fixtures.UNCONFIGURED);
    }

    @Benchmark
    public long checkLimitInCaller()
    {
        return gate.floodgate.checkLimitInCaller(HotKeyBenchmark.USER, Fixtures.UNCONFIGURED);
    }
}
