package dev.floodgate.tools.load;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import org.HdrHistogram.Histogram;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The load one worker JVM makes on its open Floodgate: its lanes' {@link LoadThread}s, started together, and what
 * they did, reported as the {@code PROGRESS}, {@code KEY}, {@code HISTO} and {@code DONE} records of
 * {@link WorkerCommand}.
 */
final class WorkerLoad
{
    private static final long PROGRESS_NANOS = 100_000_000L;

    private final Floodgate gate;
    private final List<Lane> lanes;
    /** {@code --latency}: each thread records a histogram of its checks. */
    private final boolean latency;
    /** {@code --worker}: this worker's number, from 1, which spreads its threads' first keys from other workers'. */
    private final int worker;

    WorkerLoad(final Floodgate gate, final List<Lane> lanes, final boolean latency, final int worker)
    {
        this.gate = gate;
        this.lanes = lanes;
        this.latency = latency;
        this.worker = worker;
    }

    /**
     * Runs the lanes from {@code start} to {@code end} (monotonic nanoseconds) and reports: {@code PROGRESS}
     * records while they run, then, once every thread ended, the records of what they did.
     *
     * @return the worker's exit code: 0, or 1 when a thread failed (its stack trace printed).
     */
    int run(final long start, final long end, final PrintStream out) throws InterruptedException
    {
        final int total = threadCount(lanes);
        final AtomicLongArray progress = new AtomicLongArray(total * 2);
        final List<LoadThread> threads = start(lanes, start, end, progress);
        while (System.nanoTime() - end < 0)
        {
            LockSupport.parkNanos(Math.min(PROGRESS_NANOS, Math.max(1, end - System.nanoTime())));
            long checks = 0;
            long admitted = 0;
            for (int i = 0; i < total; i++)
            {
                checks += progress.get(2 * i);
                admitted += progress.get(2 * i + 1);
            }
            out.println("PROGRESS " + checks + " " + admitted);
        }
        if (join(threads).isEmpty())
        {
            return 1;
        }
        long checks = 0;
        long elapsed = 0;
        final Histogram histogram = latency ? new Histogram(3) : null;
        for (final LoadThread thread : threads)
        {
            checks += thread.checks;
            elapsed = Math.max(elapsed, thread.elapsedNanos);
            if (histogram != null)
            {
                histogram.add(thread.histogram);
            }
        }
        for (final Lane lane : lanes)
        {
            for (int k = 0; k < lane.keyCount(); k++)
            {
                long admitted = 0;
                long refused = 0;
                for (final LoadThread thread : threads)
                {
                    if (thread.lane == lane)
                    {
                        admitted += thread.admitted[k];
                        refused += thread.refused[k];
                    }
                }
                if (admitted + refused > 0)
                {
                    out.println("KEY " + lane.action().configPrefix() + " " + lane.key(k) + " " + admitted + " " +
                        refused);
                }
            }
        }
        if (histogram != null)
        {
            final ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
            final int length = histogram.encodeIntoCompressedByteBuffer(buffer);
            out.println("HISTO " + Base64.getEncoder().encodeToString(
                java.util.Arrays.copyOf(buffer.array(), length)));
        }
        out.println("DONE " + checks + " " + elapsed);
        return 0;
    }

    /**
     * Runs the lanes with another action for {@code warmupMs}, on the same table through the same instance, so
     * that the JIT has compiled the engine's warm and cold paths, with the profiles the run will see, before the
     * run: a warm-up on another table or instance would leave type checks the run's objects fail, and the
     * run would start with deoptimisations and recompilation.
     *
     * @return false when a thread failed (its stack trace printed).
     */
    boolean warmUp(final Action action, final long warmupMs) throws InterruptedException
    {
        final List<Lane> twins = lanes.stream().map(lane -> new Lane(lane.door(), action, lane.threads(),
            lane.pauseMicros(), lane.keyPrefix(), lane.keyCount())).toList();
        final long now = System.nanoTime();
        return !join(start(twins, now, now + warmupMs * 1_000_000L, new AtomicLongArray(
            2 * threadCount(twins)))).isEmpty();
    }

    private static int threadCount(final List<Lane> lanes)
    {
        int total = 0;
        for (final Lane lane : lanes)
        {
            total += lane.threads();
        }
        return total;
    }

    private List<LoadThread> start(final List<Lane> lanes, final long start, final long end,
        final AtomicLongArray progress)
    {
        final List<LoadThread> threads = new ArrayList<>();
        int index = 0;
        for (final Lane lane : lanes)
        {
            // one array of the lane's identifiers for all its threads: a copy each would multiply the heap by the
            // threads (bench's --keys x --threads)
            final String[] keys = new String[lane.keyCount()];
            for (int k = 0; k < keys.length; k++)
            {
                keys[k] = lane.key(k);
            }
            for (int t = 0; t < lane.threads(); t++)
            {
                threads.add(new LoadThread(gate, lane, keys, t, index++, progress, start, end, latency, worker));
            }
        }
        threads.forEach(Thread::start);
        return threads;
    }

    /** @return the threads, once all ended; empty (after printing the failure) when one failed. */
    private static List<LoadThread> join(final List<LoadThread> threads) throws InterruptedException
    {
        for (final LoadThread thread : threads)
        {
            thread.join();
        }
        for (final LoadThread thread : threads)
        {
            if (thread.failure != null)
            {
                thread.failure.printStackTrace();
                return List.of();
            }
        }
        return threads;
    }
}
