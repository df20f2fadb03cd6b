package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Charge;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A checker JVM of {@link BucketSoak}: its threads hammer the soak's bucket quotas ({@link BucketSoak#SERIES}) with
 * {@code checkLimit}, weighted {@code checkLimit} and two-quota bucket {@code charge}s until the stop file appears,
 * leaving each quota idle for a third of every {@link BucketSoak#QUIET_PERIOD_NANOS} period (the same phase in
 * every JVM: {@code System.nanoTime} is the host's monotonic clock) so the janitor finds full buckets to reap.
 *
 * <p>What it admitted must survive a SIGKILL, so each admission is written as it returns ({@code thread seq
 * series cost startNanos endNanos}, one {@code write} each: the page cache keeps it) to the admissions file, and
 * each call in flight is recorded before it starts in the thread's slot of a mapped file ({@link #SLOT_BYTES}:
 * seq, start, then series and cost of up to two quotas; seq 0 when idle), cleared after its admission is written.
 * A killed child's slot whose seq the admissions file lacks is a call that may have been admitted.
 *
 * <pre>args: file admissionsFile inflightFile stopFile seed threads</pre>
 */
public final class BucketSoakChild
{
    public static final int SLOT_BYTES = 48;

    private static FileOutputStream log;

    private BucketSoakChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[0]);
        log = new FileOutputStream(args[1], true);
        final int threads = Integer.parseInt(args[5]);
        final MappedByteBuffer inflight;
        try (FileChannel channel = FileChannel.open(Path.of(args[2]), StandardOpenOption.CREATE,
            StandardOpenOption.READ, StandardOpenOption.WRITE))
        {
            inflight = channel.map(FileChannel.MapMode.READ_WRITE, 0, (long) threads * SLOT_BYTES);
        }
        final Path stop = Path.of(args[3]);
        final long seed = Long.parseLong(args[4]);
        final AtomicLong ops = new AtomicLong();
        final AtomicLong admitted = new AtomicLong();
        final AtomicLong windowOnly = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000)
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).cleanupIntervalMs(BucketSoak.CLEANUP_INTERVAL_MS)
            .build();
        try (Floodgate gate = Floodgate.openAdopting(config))
        {
            System.out.println("READY " + ProcessHandle.current().pid());
            System.out.flush();
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final int thread = t;
                final Random random = new Random(seed * 31 + t);
                workers.add(new Thread(() ->
                {
                    final int slot = thread * SLOT_BYTES;
                    for (long seq = 1; (seq & 63) != 0 || !Files.exists(stop); seq++)
                    {
                        final int a = pickSeries(random.nextInt(BucketSoak.SERIES.length));
                        final int b = pickSeries(2 + random.nextInt(2));
                        if (a < 0)
                        {
                            LockSupport.parkNanos(1_000_000L);
                            continue;
                        }
                        final int op = random.nextInt(10);
                        final long costA = op < 5 ? 1 : 1 + random.nextInt(BucketSoak.MAX_COST);
                        final boolean twoQuotas = op >= 8 && b >= 0 && b != a;
                        final long costB = twoQuotas ? 1 + random.nextInt(BucketSoak.MAX_COST) : 0;
                        final long start = System.nanoTime();
                        inflight.putLong(slot + 8, start);
                        inflight.putInt(slot + 16, a);
                        inflight.putLong(slot + 24, costA);
                        inflight.putInt(slot + 32, twoQuotas ? b : -1);
                        inflight.putLong(slot + 40, costB);
                        inflight.putLong(slot, seq);
                        try
                        {
                            final long result = twoQuotas ?
                                gate.charge(List.of(charge(a, costA), charge(b, costB))) :
                                costA == 1 && random.nextBoolean() ?
                                    gate.checkLimit(BucketSoak.SERIES[a], BucketSoak.ACTIONS[a]) :
                                    gate.checkLimit(BucketSoak.SERIES[a], BucketSoak.ACTIONS[a], costA);
                            final long end = System.nanoTime();
                            ops.incrementAndGet();
                            if (result == Floodgate.ADMITTED)
                            {
                                admitted.incrementAndGet();
                                write(thread + " " + seq + " " + a + " " + costA + " " + start + " " + end + "\n" +
                                    (twoQuotas ? thread + " " + seq + " " + b + " " + costB + " " + start + " " +
                                        end + "\n" : ""));
                            }
                        }
                        catch (final IllegalStateException ex)
                        {
                            windowOnly.incrementAndGet(); // a published limit the bucket cannot represent
                        }
                        catch (final RuntimeException ex)
                        {
                            errors.incrementAndGet();
                            ex.printStackTrace(System.out);
                        }
                        inflight.putLong(slot, 0);
                        if ((seq & 7) == 0)
                        {
                            LockSupport.parkNanos(20_000L); // leaves the parent and the janitor some CPU
                        }
                    }
                }, "soak-" + t));
            }
            workers.forEach(Thread::start);
            for (final Thread worker : workers)
            {
                worker.join();
            }
        }
        System.out.println("RESULT ops=" + ops + " admitted=" + admitted + " windowOnly=" + windowOnly +
            " errors=" + errors);
    }

    /**
     * @return the first series from {@code first} on (cyclically, PUBLISH only when {@code first} is one) not in its
     * quiet third of {@link BucketSoak#QUIET_PERIOD_NANOS} (the janitor's chance at a full bucket), or -1.
     */
    private static int pickSeries(final int first)
    {
        final int from = first >= 2 ? 2 : 0;
        final int span = BucketSoak.SERIES.length - from;
        for (int i = 0; i < span; i++)
        {
            final int series = from + (first - from + i) % span;
            if (Math.floorMod(System.nanoTime() / BucketSoak.QUIET_PERIOD_NANOS + series, 3) != 0)
            {
                return series;
            }
        }
        return -1;
    }

    private static Charge charge(final int series, final long cost)
    {
        return Charge.bucket(BucketSoak.SERIES[series], BucketSoak.ACTIONS[series], cost);
    }

    private static synchronized void write(final String lines)
    {
        try
        {
            log.write(lines.getBytes(StandardCharsets.US_ASCII));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
