package dev.floodgate.jmh;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import net.openhft.chronicle.map.ChronicleMap;
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

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A JVM's first open of a table, what a broker pays at every start and every writing CLI command: one cold call
 * per fork (single-shot, no warm-up), so class loading, Chronicle Map's set-up and the JIT's first steps are all in
 * it. The peer is Chronicle Map's own first {@code createPersistedTo} of a map of the same capacity, which the
 * engine's open wraps (with its header, policy step, registry and the pages mapped at open). Both make a new file
 * in the temporary directory, of {@link #CAPACITY} entries: the cost measured is the JVM's first time through
 * the code, not the file's size.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
@Fork(5)
@State(Scope.Thread)
public class FirstOpenBenchmark
{
    static final long CAPACITY = 10_000;

    Path dir;
    AutoCloseable opened;

    @Setup(Level.Iteration)
    public void setUp()
    {
        dir = Fixtures.tempDir();
    }

    @TearDown(Level.Iteration)
    public void tearDown() throws Exception
    {
        try
        {
            if (opened != null)
            {
                opened.close();
            }
        }
        finally
        {
            Fixtures.deleteTree(dir);
        }
    }

    /** {@code Floodgate.open} of a new table with the default configuration. */
    @Benchmark
    public Object floodgateOpen()
    {
        final Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("floodgate.map"))
            .capacity(CAPACITY).build());
        opened = gate;
        return gate;
    }

    /** Chronicle Map's first persisted map: 16-byte keys (the engine's key digests), values of a few lines. */
    @Benchmark
    public Object chronicleMapCreate() throws IOException
    {
        final ChronicleMap<byte[], byte[]> map = ChronicleMap.of(byte[].class, byte[].class)
            .constantKeySizeBySample(new byte[16])
            .averageValueSize(256)
            .entries(CAPACITY)
            .sparseFile(false)
            .createPersistedTo(dir.resolve("chronicle.map").toFile());
        opened = map;
        return map;
    }
}
