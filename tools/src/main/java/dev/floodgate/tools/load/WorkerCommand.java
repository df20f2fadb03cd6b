package dev.floodgate.tools.load;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.tools.format.WholeNumbers;
import dev.floodgate.tools.cluster.ClusterQuota;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * The hidden {@code worker} command: one broker-like JVM of {@code demo} and {@code bench}. It opens the
 * table as a broker would, says {@code READY}, waits for {@code GO start end} (monotonic nanoseconds, the same
 * clock in every process of the host) on standard input so that every worker starts at the same instant,
 * runs its lanes until {@code end} ({@link WorkerLoad}), and reports on standard output, one record a line:
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
            final WorkerLoad load = new WorkerLoad(gate, parsed, latency, worker);
            if (warmupMs > 0 && !load.warmUp(Action.parse(warmupAction), warmupMs))
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
            return load.run(start, end, out);
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
}
