package dev.floodgate.tools.load;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.tools.format.WholeNumbers;
import dev.floodgate.tools.cluster.ClusterQuota;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The hidden {@code worker} command: one broker-like JVM of {@code demo} and {@code bench}. It opens the
 * table as a broker would, says {@code READY}, waits for {@code GO start end} (monotonic nanoseconds, the same
 * clock in every process of the host) on standard input so that every worker starts at the same instant,
 * runs its lanes until {@code end}, and reports on standard output, one record a line:
 *
 * <pre>
 * READY pid
 * PROGRESS checks admitted            every 100 ms
 * KEY action identifier admitted refused   one per key it checked
 * HISTO base64                        latency histogram (compressed HdrHistogram), with --latency
 * DONE checks elapsedNanos
 * </pre>
 */
@Command(name = "worker", hidden = true, description = "Internal: one load-generating JVM of demo and bench.")
public final class WorkerCommand implements Callable<Integer>
{
    private static final long PROGRESS_NANOS = 100_000_000L;

    @Option(names = "--file", required = true)
    private Path file;

    @Option(names = "--lane", required = true)
    private List<String> lanes;

    @Option(names = "--limit", description = "action=limit/windowMs")
    private List<String> limits = new ArrayList<>();

    @Option(names = "--cluster-redis", description = "cluster_redis_uri")
    private String clusterRedis;

    @Option(names = "--cluster-limit", description = "action=limit/windowMs/lease, a cluster quota")
    private List<String> clusterLimits = new ArrayList<>();

    @Option(names = "--capacity", defaultValue = "100000")
    private long capacity;

    @Option(names = "--latency")
    private boolean latency;

    @Option(names = "--worker", defaultValue = "0", description = "This worker's number, from 1.")
    private int worker;

    @Option(names = "--warmup-ms", defaultValue = "0")
    private long warmupMs;

    @Option(names = "--warmup-action")
    private String warmupAction;

    /**
     * How long a worker with a cluster quota waits for Redis before it says READY: a run measures connected nodes
     * (on a loaded host several JVMs' handshakes outlast {@code open}'s own 5 s wait, and a node that is not
     * connected only answers its fallback).
     */
    private static final long CONNECT_WAIT_S = 60;

    private static boolean awaitCluster(final Floodgate gate) throws InterruptedException
    {
        final long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(CONNECT_WAIT_S);
        while (gate.processCluster().connection() == ClusterStats.Connection.DOWN)
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            Thread.sleep(10);
        }
        return true;
    }

    @Override
    public Integer call() throws Exception
    {
        final PrintStream out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true,
            StandardCharsets.UTF_8);
        if (!Files.isRegularFile(file))
        {
            // its command made the table before starting any worker, so a missing one was removed (the command
            // stopped by SIGTERM while this JVM started): opening would make it again, left under /dev/shm for good
            System.err.println("worker: " + file + ": no table there; a worker maps the table its command made, " +
                "never a new one");
            return 1;
        }
        final java.util.concurrent.CompletableFuture<String> go = watchParent();
        final FloodgateConfig.Builder builder = FloodgateConfig.builder().file(file).capacity(capacity);
        for (final String limit : limits)
        {
            final String[] parts = limit.split("[=/]");
            builder.limit(Action.parse(parts[0]), WholeNumbers.parseLong(parts[1]),
                WholeNumbers.parseLong(parts[2]));
        }
        ClusterQuota.apply(builder, clusterRedis, clusterLimits);
        final List<Lane> parsed = lanes.stream().map(Lane::parse).toList();
        try (Floodgate gate = Floodgate.open(builder.build()))
        {
            if (!awaitCluster(gate))
            {
                System.err.println("worker: not connected to the cluster's Redis within " + CONNECT_WAIT_S + " s");
                return 1;
            }
            if (warmupMs > 0 && !warmUp(gate, parsed))
            {
                return 1;
            }
            out.println("READY " + ProcessHandle.current().pid());
            final String line = go.get();
            if (!line.startsWith("GO "))
            {
                System.err.println("worker: expected 'GO start end' on standard input, got " + line);
                return 1;
            }
            final String[] words = line.split(" ");
            final long start = Long.parseLong(words[1]);
            final long end = Long.parseLong(words[2]);
            return run(gate, parsed, start, end, out);
        }
    }

    /**
     * Reads standard input from the start, on a daemon thread: its first line (GO) completes the future, and its
     * end (the command that started this JVM is gone, even by SIGKILL, which runs no hook of its) ends this JVM,
     * in any phase: opening the table, connecting to the cluster, warming up or running.
     */
    private static java.util.concurrent.CompletableFuture<String> watchParent()
    {
        final java.util.concurrent.CompletableFuture<String> go = new java.util.concurrent.CompletableFuture<>();
        final Thread watcher = new Thread(() ->
        {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)))
            {
                for (String line = in.readLine(); line != null; line = in.readLine())
                {
                    go.complete(line);
                }
            }
            catch (final java.io.IOException ex)
            {
                // as the end of the input: the parent is gone
            }
            System.err.println("worker: standard input closed, the command that started this worker has ended; " +
                "stopping");
            System.exit(1);
        }, "worker-parent-watch");
        watcher.setDaemon(true);
        watcher.start();
        return go;
    }

    private int run(final Floodgate gate, final List<Lane> lanes, final long start, final long end,
        final PrintStream out) throws InterruptedException
    {
        final int total = threadCount(lanes);
        final AtomicLongArray progress = new AtomicLongArray(total * 2);
        final List<LoadThread> threads = start(gate, lanes, start, end, progress);
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
     * Runs the lanes with another action for {@code --warmup-ms}, on the same table through the same instance, so
     * that the JIT has compiled the engine's warm and cold paths, with the profiles the run will see, before the
     * run: a warm-up on another table or instance would leave type checks the run's objects fail, and the
     * run would start with deoptimisations and recompilation.
     */
    private boolean warmUp(final Floodgate gate, final List<Lane> lanes) throws InterruptedException
    {
        final Action action = Action.parse(warmupAction);
        final List<Lane> twins = lanes.stream().map(lane -> new Lane(lane.door(), action, lane.threads(),
            lane.pauseMicros(), lane.keyPrefix(), lane.keyCount())).toList();
        final long now = System.nanoTime();
        return !join(start(gate, twins, now, now + warmupMs * 1_000_000L, new AtomicLongArray(
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

    private List<LoadThread> start(final Floodgate gate, final List<Lane> lanes, final long start, final long end,
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
