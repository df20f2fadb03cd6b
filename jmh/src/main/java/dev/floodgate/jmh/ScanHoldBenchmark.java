package dev.floodgate.jmh;

import dev.floodgate.Action;
import dev.floodgate.TableBusyException;
import dev.floodgate.door.TokenBucket;
import dev.floodgate.store.BucketWords;
import dev.floodgate.store.Entry;
import dev.floodgate.store.QuotaTable;
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
 * What a janitor's scan costs the cold checks beside it: one thread scans the table back to back, the other looks keys
 * up under their segment's guard (as a check's locked path does), in a table of 100,000 holding 50,000 buckets. Group
 * {@code guardedVisit} visits every entry under its segment's guard (the janitor's scan before), {@code copiedVisit}
 * holds the guard for the census only and visits copies ({@code TableScans.forEachEntryUnguarded}, the janitor's scan
 * now); both visitors make the janitor's idle test of a bucket. Compare {@code lookup} across the two groups (with
 * {@code -bm sample} for its tail); a lookup given up after 50 ms returns -1 and costs those 50 ms. {@code jmh/run}
 * runs it only when named; each group opens its own table, so run it at one group ({@code -t 1}, rounded up to 2).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Group)
public class ScanHoldBenchmark
{
    private static final int ENTRIES = 50_000;
    private static final long HOUR_MS = 3_600_000L;

    Path dir;
    QuotaTable table;
    byte[][] keys;
    int next;
    long idle;

    @Setup(Level.Trial)
    public void setUp() throws Exception
    {
        dir = Fixtures.tempDir();
        final long now = System.nanoTime();
        table = QuotaTable.open(dir.resolve("scan.map"), 100_000, 4, false, now);
        final TokenBucket bucket = new TokenBucket(10, HOUR_MS);
        keys = new byte[1024][];
        for (int i = 0; i < ENTRIES; i++)
        {
            final String id = "10.1." + (i >> 8) + "." + (i & 255);
            // a bucket with debt: not idle, so nothing is ever tombstoned
            table.lookup().resolve(Entry.KIND_BUCKET, Action.AUTH, id, 10, HOUR_MS, 1,
                bucket.fullWord(now) + 3_600_000_000_000L, now, null);
            if (i < keys.length)
            {
                keys[i] = table.hasher().key(id, Action.AUTH, Entry.KIND_BUCKET);
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        try
        {
            table.close();
        }
        finally
        {
            Fixtures.deleteTree(dir);
        }
    }

    @Benchmark
    @Group("guardedVisit")
    @GroupThreads(1)
    public long scan()
    {
        table.scans().forEachEntryInPlace((key, value) -> judge(value));
        return idle;
    }

    @Benchmark
    @Group("guardedVisit")
    @GroupThreads(1)
    public int lookup()
    {
        return lookupOne();
    }

    @Benchmark
    @Group("copiedVisit")
    @GroupThreads(1)
    public long scanCopies()
    {
        table.scans().forEachEntryUnguarded((key, value) -> judge(value));
        return idle;
    }

    @Benchmark
    @Group("copiedVisit")
    @GroupThreads(1)
    public int lookupBesideCopies()
    {
        return lookupOne();
    }

    private int lookupOne()
    {
        try
        {
            return table.locked().isLive(keys[next++ & (keys.length - 1)]) ? 1 : 0;
        }
        catch (final TableBusyException gaveUp)
        {
            return -1;
        }
    }

    /** The janitor's idle test of a bucket. */
    private void judge(final Entry value)
    {
        if (!value.isTombstonedVolatile() && value.kind() == Entry.KIND_BUCKET &&
            new TokenBucket(value.limit(), value.windowMs()).isFull(BucketWords.tatVolatile(value), System.nanoTime()))
        {
            idle++;
        }
    }
}
