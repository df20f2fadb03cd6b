package dev.floodgate.jmh;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
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
 * A JVM's first open of a table, what a broker pays at every start and every writing CLI command: one cold call
 * per fork (single-shot, no warm-up), so class loading, Chronicle Map's set-up and the JIT's first steps are all in
 * it. A new file in the temporary directory, of {@link #CAPACITY} entries: the cost measured is the JVM's first
 * time through the code, not the file's size. Read against the same benchmark in another jar (NOTES.md, "The first
 * open"); this module uses the engine only through its API, so Chronicle Map's own first create cannot be a cell.
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
}
