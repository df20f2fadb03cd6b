package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM of one node with a cluster quota on PUBLISH ({@link ClusterKit#publishNode}): opens its node's file,
 * waits until connected to Redis (60 s at most, else exits 2), prints {@code READY}, waits for the go file, checks
 * one hot identifier from its threads for the run's
 * length, and prints {@code RESULT admitted=N checks=C errors=E maxMs=M retry100=R} (R: refusals with the
 * default retry-after of a check refused for want of a lease, as when Redis is unavailable).
 *
 * <p>Arguments: file, Redis URI, identifier, cluster limit, cluster window ms, lease, threads, run ms, go file.
 */
public final class ClusterWorker
{
    private ClusterWorker()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[0]);
        final String identifier = args[2];
        final int threads = Integer.parseInt(args[6]);
        final long runMs = Long.parseLong(args[7]);
        final Path go = Path.of(args[8]);
        try (Floodgate gate = Floodgate.open(ClusterKit.publishNode(file, args[1], Long.parseLong(args[3]),
            Long.parseLong(args[4]), Long.parseLong(args[5])).build()))
        {
            // the premise of a run: connected to Redis (on a loaded host six JVMs' handshakes can outlast open's
            // 5 s wait, and a worker that never connects admits nothing, which is not what the test measures)
            final long connectBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (gate.processCluster().connection() != ClusterStats.Connection.UP)
            {
                if (System.nanoTime() - connectBy > 0)
                {
                    System.out.println("FAILED not connected to Redis within 60 s");
                    System.exit(2);
                }
                Thread.sleep(10);
            }
            System.out.println("READY " + ProcessHandle.current().pid());
            System.out.flush();
            while (!Files.exists(go))
            {
                Thread.sleep(1);
            }
            final AtomicLong admitted = new AtomicLong();
            final AtomicLong checks = new AtomicLong();
            final AtomicLong errors = new AtomicLong();
            final AtomicLong maxNanos = new AtomicLong();
            final AtomicLong unavailable = new AtomicLong();
            final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(runMs);
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                workers.add(new Thread(() ->
                {
                    while (System.nanoTime() - end < 0)
                    {
                        final long start = System.nanoTime();
                        try
                        {
                            final long result = gate.checkLimit(identifier, Action.PUBLISH);
                            if (result == Floodgate.ADMITTED)
                            {
                                admitted.incrementAndGet();
                            }
                            else
                            {
                                if (result == FloodgateConfig.DEFAULT_CLUSTER_RETRY_AFTER_MS)
                                {
                                    unavailable.incrementAndGet();
                                }
                                // a broker's thread does other work between checks: leave the CPUs some time,
                                // or two shared cores starve the client's own threads past its 50 ms bound
                                LockSupport.parkNanos(20_000);
                            }
                        }
                        catch (final RuntimeException ex)
                        {
                            errors.incrementAndGet();
                        }
                        checks.incrementAndGet();
                        maxNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
                    }
                }));
            }
            workers.forEach(Thread::start);
            for (final Thread worker : workers)
            {
                worker.join();
            }
            System.out.println("RESULT admitted=" + admitted.get() + " checks=" + checks.get() + " errors=" +
                errors.get() + " maxMs=" + TimeUnit.NANOSECONDS.toMillis(maxNanos.get()) + " retry100=" +
                unavailable.get());
            System.out.flush();
        }
    }
}
