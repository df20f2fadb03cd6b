package dev.floodgate.jmh;

import dev.floodgate.Floodgate;
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
 * The refused path: a quota of 1 per hour, spent in setup, so every measured check is refused, computes its
 * retry-after and bumps the identifier's blocked counter (the window door first sweeps every active shard).
 * Target: at most 2x the admitted check of the same door.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class RefusedBenchmark
{
    Fixtures.Gate gate;

    @Setup(Level.Trial)
    public void setUp()
    {
        gate = Fixtures.openAnd(1024, g ->
        {
            final Floodgate floodgate = g.floodgate;
            Fixtures.requireAdmitted(floodgate.checkLimit(HotKeyBenchmark.USER, Fixtures.REFUSED),
                "first checkLimit");
            Fixtures.requireAdmitted(floodgate.checkLimitInCaller(HotKeyBenchmark.USER, Fixtures.REFUSED),
                "first checkLimitInCaller");
            if (floodgate.checkLimit(HotKeyBenchmark.USER, Fixtures.REFUSED) == Floodgate.ADMITTED ||
                floodgate.checkLimitInCaller(HotKeyBenchmark.USER, Fixtures.REFUSED) == Floodgate.ADMITTED)
            {
                throw new IllegalStateException("an exhausted quota was admitted");
            }
        });
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        try
        {
            if (gate.floodgate.blockedCount(HotKeyBenchmark.USER, Fixtures.REFUSED) < 2)
            {
                throw new IllegalStateException("the refused benchmark did not refuse");
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
        return gate.floodgate.checkLimit(HotKeyBenchmark.USER, Fixtures.REFUSED);
    }

    @Benchmark
    public long checkLimitInCaller()
    {
        return gate.floodgate.checkLimitInCaller(HotKeyBenchmark.USER, Fixtures.REFUSED);
    }
}
