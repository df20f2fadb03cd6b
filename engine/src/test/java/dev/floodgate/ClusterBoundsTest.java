package dev.floodgate;

import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cluster quota's two bounds, measured against a real redis-server with three nodes (three table files in
 * this JVM, one hammering thread each): the checks admit at least the cluster's allowance (capacity plus refill
 * over the measured server time) less what the nodes hold leased and unspent, and a Redis restarted without
 * persistence (its buckets start full) costs at most one capacity too much. Prints the figures NOTES.md quotes.
 */
@Timeout(180)
class ClusterBoundsTest
{
    private static final long LIMIT = 300;
    private static final long WINDOW_MS = 1_000;
    private static final long LEASE = 30;
    private static final int NODES = 3;
    private static final long RUN_MS = 4_000;

    @TempDir
    Path dir;

    @Test
    void shouldAdmitTheAllowanceLessAtMostWhatTheNodesHold() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final List<Floodgate> nodes = openNodes(redis);
            try
            {
                final long startMs = redis.timeMs();
                final Run run = hammer(nodes, () -> { });
                final long endMs = redis.timeMs();
                final long allowance = ClusterKit.allowance(LIMIT, WINDOW_MS, startMs, endMs);
                // each node holds at most a lease and a half (refilled below half a lease), the bucket about half
                // a lease (a drained node asks again once it holds that), and a quarter window for the host's lags
                final long slack = NODES * 2 * LEASE + LIMIT / 4;
                System.out.println("three nodes admitted " + run.admitted + " of " + run.checks + " checks; the " +
                    "allowance over " + (endMs - startMs) + " ms of server time is " + allowance + ", short by " +
                    (allowance - run.admitted) + " (bound " + slack + "); per node " + run.perNode);
                assertTrue(run.admitted <= allowance, "admitted " + run.admitted + " over " + allowance);
                assertTrue(run.admitted >= allowance - slack, "admitted " + run.admitted + ", short of the " +
                    "allowance " + allowance + " by more than " + slack);
            }
            finally
            {
                nodes.forEach(Floodgate::close);
            }
        }
    }

    @Test
    void shouldAdmitAtMostOneCapacityTooMuchWhenRedisRestartsEmpty() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final List<Floodgate> nodes = openNodes(redis);
            try
            {
                final long startMs = redis.timeMs();
                final Run run = hammer(nodes, () ->
                {
                    // once the first capacity is spent, lose the buckets: a new empty server on the same port
                    try
                    {
                        redis.kill9();
                        redis.restart();
                    }
                    catch (final java.io.IOException ex)
                    {
                        throw new java.io.UncheckedIOException(ex);
                    }
                });
                final long endMs = redis.timeMs();
                final long allowance = ClusterKit.allowance(LIMIT, WINDOW_MS, startMs, endMs);
                System.out.println("three nodes admitted " + run.admitted + " of " + run.checks + " checks with " +
                    "Redis restarted empty mid-run; the allowance over " + (endMs - startMs) + " ms of server time " +
                    "is " + allowance + ", over it by " + (run.admitted - allowance) + " (bound: one capacity, " +
                    LIMIT + "); " + (run.admitted - run.atMidRun) + " after the restart; per node " + run.perNode);
                assertTrue(run.admitted <= allowance + LIMIT, "admitted " + run.admitted + ", more than one " +
                    "capacity over the allowance " + allowance);
                // the premise: leases resumed on the new server, whose full bucket was spent (the old one's last
                // tokens and the refusals while Redis was away make up for some of it, so the total over the
                // allowance is less than a capacity)
                assertTrue(run.admitted - run.atMidRun >= LIMIT, "after the restart only " +
                    (run.admitted - run.atMidRun) + " admitted");
            }
            finally
            {
                nodes.forEach(Floodgate::close);
            }
        }
    }

    /** What a run admitted. */
    private record Run(long admitted, long checks, List<Long> perNode, long atMidRun)
    {
    }

    /**
     * @return {@link #NODES} engines on their own files; each file is created in a later millisecond than the one
     * before, so each is a node of its own name.
     */
    private List<Floodgate> openNodes(final LocalRedis redis)
    {
        final List<Floodgate> nodes = new ArrayList<>();
        for (int n = 0; n < NODES; n++)
        {
            nodes.add(Floodgate.open(ClusterKit.publishNode(dir.resolve("node" + n + ".map"), redis.uri(), LIMIT,
                WINDOW_MS, LEASE).build()));
            final long created = System.currentTimeMillis();
            while (System.currentTimeMillis() == created)
            {
                Thread.onSpinWait(); // the next file's creation ms, which names its node, is a later one
            }
        }
        return nodes;
    }

    /**
     * One thread per node checks one identifier for {@link #RUN_MS}; the calling thread runs {@code midRun} once
     * the nodes admitted a capacity (bounded: it fails the run if they never do).
     */
    private static Run hammer(final List<Floodgate> nodes, final Runnable midRun) throws Exception
    {
        final List<AtomicLong> admitted = nodes.stream().map(node -> new AtomicLong()).toList();
        final AtomicLong checks = new AtomicLong();
        final AtomicLong atMidRun = new AtomicLong();
        final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MS);
        ClusterKit.hammer(nodes.size(), RUN_MS, node ->
        {
            final long result = nodes.get(node).checkLimit("hot", Action.PUBLISH);
            checks.incrementAndGet();
            if (result == Floodgate.ADMITTED)
            {
                admitted.get(node).incrementAndGet();
            }
            else
            {
                assertTrue(result > 0 && result <= WINDOW_MS, "a retry-after: " + result);
                LockSupport.parkNanos(20_000); // a broker's thread does other work between checks
            }
        }, () ->
        {
            while (admitted.stream().mapToLong(AtomicLong::get).sum() < LIMIT && System.nanoTime() - end < 0)
            {
                LockSupport.parkNanos(1_000_000L); // polls a count, bounded by the run's end
            }
            assertTrue(System.nanoTime() - end < 0, "the premise: a capacity admitted within the run");
            atMidRun.set(admitted.stream().mapToLong(AtomicLong::get).sum());
            midRun.run();
        });
        final List<Long> perNode = admitted.stream().map(AtomicLong::get).toList();
        return new Run(perNode.stream().mapToLong(Long::longValue).sum(), checks.get(), perNode, atMidRun.get());
    }
}
