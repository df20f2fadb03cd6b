package dev.floodgate.jmh;

import dev.floodgate.Quota;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;
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

import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The original comparison: every thread checks one hot identifier through each door, beside the design's
 * baseline, one unsharded atomic counter in the same kind of shared memory (a cache-line aligned word in a
 * mapped file, as the doors' words are, bumped with Agrona's {@code getAndAddLong}, no clock and no lookup).
 * Limits are never reached.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class HotKeyBenchmark
{
    static final String USER = "user-4711";
    /** One cache line in, as a table value's first state word sits on its own line. */
    private static final int COUNTER_OFFSET = 64;

    Fixtures.Gate gate;
    /** The same identifier and action, resolved once, as a broker holds it per connection. */
    Quota quota;
    Path counterDir;
    MappedByteBuffer counterMapping;
    UnsafeBuffer counter;

    @Setup(Level.Trial)
    public void setUp()
    {
        gate = Fixtures.openAnd(1024, g ->
        {
            for (int i = 0; i < 1000; i++)
            {
                Fixtures.requireAdmitted(g.floodgate.checkLimit(USER, Fixtures.HOT), "checkLimit");
                Fixtures.requireAdmitted(g.floodgate.checkLimitInCaller(USER, Fixtures.HOT), "checkLimitInCaller");
            }
            openCounter();
        });
        quota = gate.floodgate.quota(USER, Fixtures.HOT);
    }

    /** A mapped file of its own: the memory kind the doors write, without the table around it. */
    private void openCounter()
    {
        counterDir = Fixtures.tempDir();
        try
        {
            counterMapping = IoUtil.mapNewFile(counterDir.resolve("counter.map").toFile(), 4096);
            counter = new UnsafeBuffer(counterMapping);
        }
        catch (final RuntimeException ex)
        {
            Fixtures.deleteTree(counterDir);
            throw ex;
        }
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
            IoUtil.unmap(counterMapping);
            Fixtures.deleteTree(counterDir);
        }
    }

    /** Door 1, the exact token bucket: one clock read and one CAS on a word every thread shares. */
    @Benchmark
    public long checkLimit()
    {
        return gate.floodgate.checkLimit(USER, Fixtures.HOT);
    }

    /** Door 2, the sharded window: a coarse clock read and one CAS on this thread's shard. */
    @Benchmark
    public long checkLimitInCaller()
    {
        return gate.floodgate.checkLimitInCaller(USER, Fixtures.HOT);
    }

    /** Door 1 through a handle: no identifier to find. */
    @Benchmark
    public long quotaCheckLimit()
    {
        return quota.checkLimit();
    }

    /** Door 2 through a handle. */
    @Benchmark
    public long quotaCheckLimitInCaller()
    {
        return quota.checkLimitInCaller();
    }

    /** The design's baseline: one unsharded atomic add in the mapped file. */
    @Benchmark
    public long unshardedAtomic()
    {
        return counter.getAndAddLong(COUNTER_OFFSET, 1);
    }
}
