package dev.floodgate.jmh;

import dev.floodgate.Action;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.Resolved;
import dev.floodgate.store.TableFullException;
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

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The original comparison: every thread checks one hot identifier through each door, beside the design's
 * baseline, one unsharded atomic counter in the same kind of shared memory (a value in a Floodgate table file,
 * bumped with Agrona's {@code getAndAddLong}, no clock and no lookup). Limits are never reached.
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

    Fixtures.Gate gate;
    Path counterDir;
    QuotaTable counterTable;
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
    }

    /** The same table layout the doors use, on its own file: one 64-byte aligned word in a mapped value. */
    private void openCounter() throws TableFullException
    {
        counterDir = Fixtures.tempDir();
        try
        {
            counterTable = QuotaTable.open(counterDir.resolve("counter.map"), 1024,
                Runtime.getRuntime().availableProcessors(), false, System.nanoTime());
            final Resolved resolved = counterTable.resolve(EntryLayout.KIND_BLOCKED, Action.PUBLISH, USER, 1, 1, 0, 0,
                System.nanoTime(), (value, header) -> { });
            counter = resolved.buffer();
        }
        catch (final RuntimeException | TableFullException ex)
        {
            if (counterTable != null)
            {
                counterTable.close();
            }
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
            counterTable.close();
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

    /** The design's baseline: one unsharded atomic add in the mapped file. */
    @Benchmark
    public long unshardedAtomic()
    {
        return counter.getAndAddLong(EntryLayout.STATE_OFFSET, 1);
    }
}
