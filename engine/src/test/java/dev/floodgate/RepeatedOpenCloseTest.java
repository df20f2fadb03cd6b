package dev.floodgate;

import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broker that opens and closes Floodgate many times in one JVM (a component restarted to reconfigure, plugins
 * reloaded, tests) keeps nothing of the closed instances: no thread (clock, janitor, the cluster client's event loops
 * and timer), no descriptor (the table, its lock file, a Redis socket), no mapping of the table once the closed
 * instances are unreachable (the cleaner unmaps it after a GC), no fcntl lock, and no slot of the table's 64-slot
 * process registry (more cycles than slots: a slot kept per close refuses the 65th open). Each cycle checks through
 * both doors, a quota handle and a probe, republishes the policy, reads stats, opens a reader beside the instance, and
 * closes while another thread checks; every tenth has a cluster quota, leasing from a real redis-server.
 *
 * <p>The figures are counted against the JVM's after one cycle of each kind (so that the JDK's and the libraries'
 * lazily started singletons are there already), with an allowance of a few for what the JVM opens meanwhile: a leak
 * per cycle shows as 100 or more (10 or more per cluster resource). What is released asynchronously (threads that end
 * just after close returns, the unmapping after a GC) is waited for, bounded: a leak never comes back within it.
 */
@Timeout(120)
class RepeatedOpenCloseTest
{
    private static final int CYCLES = 100;
    private static final int CLUSTER_EVERY = 10;
    private static final int ALLOWANCE = 4;
    private static final long SETTLE_NANOS = TimeUnit.SECONDS.toNanos(20);

    @TempDir
    Path dir;

    @Test
    void shouldKeepNoThreadDescriptorMappingLockOrSlotOfAClosedInstance() throws Exception
    {
        final Path file = dir.resolve("node.map");
        final Path clusterFile = dir.resolve("cluster.map");
        try (LocalRedis redis = LocalRedis.start())
        {
            final FloodgateConfig local = config(file).build();
            final FloodgateConfig cluster = config(clusterFile).clusterRedisUri(redis.uri())
                .clusterLimit(Action.PUBLISH, 1_000_000, 1_000).clusterLease(Action.PUBLISH, 10)
                .clusterFallbackLocal(Action.PUBLISH, false).build();
            cycle(local, 0);
            cycle(cluster, 0);
            final Figures before = Figures.settled(dir, null, null);
            final long[] nanos = new long[2];
            for (int i = 1; i <= CYCLES; i++)
            {
                final boolean clustered = i % CLUSTER_EVERY == 0;
                final long start = System.nanoTime();
                cycle(clustered ? cluster : local, i);
                nanos[clustered ? 1 : 0] += System.nanoTime() - start;
            }
            final long settling = System.nanoTime();
            final Figures after = Figures.settled(dir, before.threads, before);
            System.out.println("REPEATED_OPEN_CLOSE cycles=" + CYCLES + " node-only ms=" + nanos[0] / 1_000_000 +
                " clustered ms=" + nanos[1] / 1_000_000 + " settled in ms=" +
                (System.nanoTime() - settling) / 1_000_000 + " before: " + before + "; after: " + after);
            assertTrue(after.within(before), "after " + CYCLES + " open/close cycles: " + after + ", before: " +
                before + " (allowance " + ALLOWANCE + " each)");
            for (final Path table : List.of(file, clusterFile))
            {
                try (FloodgateReader reader = FloodgateReader.open(table))
                {
                    assertEquals(0, reader.attachedProcesses(), table + ": slots still held after every close");
                }
            }
        }
    }

    private static FloodgateConfig.Builder config(final Path file)
    {
        return FloodgateConfig.builder().file(file).capacity(1_000).preTouch(false)
            .limit(Action.PUBLISH, 1_000_000, 1_000);
    }

    /** One instance's life, in a method of its own: no frame of the test's keeps it reachable afterwards. */
    private static void cycle(final FloodgateConfig config, final int i) throws InterruptedException
    {
        final Floodgate gate = Floodgate.open(config);
        final boolean clustered = config.hasClusterQuota();
        final Thread checker;
        final CountDownLatch checking = new CountDownLatch(1);
        try
        {
            assertTrue(admitsAlice(gate, clustered), "cycle " + i);
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0." + i, Action.AUTH), "cycle " + i);
            gate.quota("handle", Action.PUBLISH).checkLimitInCaller();
            gate.probe("10.0.0.1", Action.AUTH);
            gate.reconfigure(config(config.file()).limit(Action.PUBLISH, 1_000_000 - i, 1_000).build());
            gate.stats();
            try (FloodgateReader reader = FloodgateReader.open(config.file()))
            {
                assertEquals(1, reader.attachedProcesses(), "cycle " + i);
            }
            if (clustered)
            {
                assertTrue(gate.processCluster().roundTrips() > 0, "cycle " + i + ": the premise, a lease from Redis");
            }
            checker = new Thread(() ->
            {
                try
                {
                    while (true)
                    {
                        gate.checkLimitInCaller("bob", Action.PUBLISH);
                        checking.countDown();
                    }
                }
                catch (final IllegalStateException closed)
                {
                    // what a check meets once close has run
                }
            }, "repeated-open-close-checker");
            checker.start();
            assertTrue(checking.await(10, TimeUnit.SECONDS), "cycle " + i + ": the checker never checked");
        }
        finally
        {
            gate.close(); // under the checker's checks
        }
        checker.join(TimeUnit.SECONDS.toMillis(10));
        assertFalse(checker.isAlive(), "cycle " + i + ": a check never ended after close");
    }

    /**
     * @return whether a check of alice's was admitted: at once on the node's quota; with a cluster quota, once the
     * first lease came from Redis (a check never waits for it: refused meanwhile), within a few seconds.
     */
    private static boolean admitsAlice(final Floodgate gate, final boolean clustered)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long retryAfterMs;
        while ((retryAfterMs = gate.checkLimitInCaller("alice", Action.PUBLISH)) != Floodgate.ADMITTED && clustered &&
            System.nanoTime() - deadline < 0)
        {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(retryAfterMs));
        }
        return retryAfterMs == Floodgate.ADMITTED;
    }

    /** What the JVM holds: threads, descriptors, mappings and fcntl locks. */
    private record Figures(Set<Thread> threads, List<String> newThreads, long descriptors, long mappings,
        long locks)
    {
        /**
         * Counts, forcing GCs (the cleaner unmaps unreachable instances) until the counts are within the allowance of
         * {@code base} or {@link #SETTLE_NANOS} passed; with no base, until the tables are unmapped.
         *
         * @param known the threads of the base, those others are new; null: counted as the base.
         */
        static Figures settled(final Path dir, final Set<Thread> known, final Figures base) throws IOException
        {
            final long deadline = System.nanoTime() + SETTLE_NANOS;
            while (true)
            {
                System.gc();
                final Figures now = count(dir, known);
                if ((base == null ? now.mappings == 0 : now.within(base)) || System.nanoTime() - deadline > 0)
                {
                    return now;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }

        boolean within(final Figures base)
        {
            return newThreads.size() <= ALLOWANCE && descriptors <= base.descriptors + ALLOWANCE &&
                mappings <= base.mappings + ALLOWANCE && locks <= base.locks + ALLOWANCE;
        }

        private static Figures count(final Path dir, final Set<Thread> known) throws IOException
        {
            final Set<Thread> threads = Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
                .collect(Collectors.toSet());
            final List<String> newThreads = new ArrayList<>();
            for (final Thread thread : threads)
            {
                if (known != null && !known.contains(thread))
                {
                    newThreads.add(thread.getName());
                }
            }
            final long descriptors;
            try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
            {
                descriptors = fds.count();
            }
            final String tables = dir.toRealPath().toString();
            final long mappings = Files.readAllLines(Path.of("/proc/self/maps")).stream()
                .filter(line -> line.contains(tables)).count();
            final String pid = Long.toString(ProcessHandle.current().pid());
            final long locks = Files.readAllLines(Path.of("/proc/locks")).stream()
                .map(line -> line.trim().split("\\s+"))
                .filter(fields -> fields.length > 4 && fields[4].equals(pid)).count();
            return new Figures(threads, newThreads, descriptors, mappings, locks);
        }

        @Override
        public String toString()
        {
            return threads.size() + " threads (new: " + newThreads + "), descriptors " + descriptors +
                ", mappings of the tables " + mappings + ", fcntl locks " + locks;
        }
    }
}
