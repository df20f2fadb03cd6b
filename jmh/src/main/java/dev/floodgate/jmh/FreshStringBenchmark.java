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
 * The hot key as a broker parsing the wire would pass it: a fresh, equal {@code String} per call, so the
 * process cache cannot match by identity and the string's hash is not yet cached. Compare with
 * {@link HotKeyBenchmark} (same instance); {@link #newStringOnly} is the cost of making the string, which the
 * check itself does not add to.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class FreshStringBenchmark
{
    final char[] chars = HotKeyBenchmark.USER.toCharArray();
    Fixtures.Gate gate;

    @Setup(Level.Trial)
    public void setUp()
    {
        gate = Fixtures.openAnd(1024, g ->
        {
            Fixtures.requireAdmitted(g.floodgate.checkLimit(new String(chars), Fixtures.HOT), "checkLimit");
            Fixtures.requireAdmitted(g.floodgate.checkLimitInCaller(new String(chars), Fixtures.HOT),
                "checkLimitInCaller");
        });
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        try
        {
            Fixtures.requireNoRefusals(gate, HotKeyBenchmark.USER);
        }
        finally
        {
            gate.close();
        }
    }

    @Benchmark
    public long checkLimit()
    {
        return gate.floodgate.checkLimit(new String(chars), Fixtures.HOT);
    }

    @Benchmark
    public long checkLimitInCaller()
    {
        return gate.floodgate.checkLimitInCaller(new String(chars), Fixtures.HOT);
    }

    /** Only the allocation and copy of the identifier: subtract it to see what the check adds. */
    @Benchmark
    public String newStringOnly()
    {
        return new String(chars);
    }
}
