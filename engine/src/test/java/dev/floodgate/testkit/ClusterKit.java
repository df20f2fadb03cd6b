package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What the cluster tests (the Cluster*Test classes, their child JVMs, the CLI's cluster tests) set up alike: the
 * nodes' configurations, {@link ClusterWorker} children and their results, the cluster bucket's allowance over
 * a run, and threads that check until a deadline.
 */
public final class ClusterKit
{
    private ClusterKit()
    {
    }

    /**
     * @return a node on {@code file} with a cluster quota on PUBLISH (its node limit far above, so the cluster's is
     * what binds) that refuses without a lease, so an admission on the node's quota alone cannot hide a lease that
     * failed.
     */
    public static FloodgateConfig.Builder publishNode(final Path file, final String uri, final long limit,
        final long windowMs, final long lease)
    {
        return FloodgateConfig.builder().file(file).capacity(1_000).limit(Action.PUBLISH, 1_000_000, 1_000)
            .clusterRedisUri(uri).clusterLimit(Action.PUBLISH, limit, windowMs).clusterLease(Action.PUBLISH, lease)
            .clusterFallbackLocal(Action.PUBLISH, false);
    }

    /**
     * @return the node the stats tests read: PUBLISH (fallback local) and AUTH (fallback refuse) leased 10 at a time
     * from cluster quotas of 100 a minute, AUTH's node quota 1 a minute; DASHBOARD_API leased 2 of a cluster quota
     * of 2 a minute.
     */
    public static FloodgateConfig statsNode(final Path file, final String uri)
    {
        return FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 1_000, 60_000).limit(Action.AUTH, 1, 60_000)
            .limit(Action.DASHBOARD_API, 1_000, 60_000).clusterRedisUri(uri)
            .clusterLimit(Action.PUBLISH, 100, 60_000).clusterLease(Action.PUBLISH, 10)
            .clusterFallbackLocal(Action.PUBLISH, true)
            .clusterLimit(Action.AUTH, 100, 60_000).clusterLease(Action.AUTH, 10)
            .clusterFallbackLocal(Action.AUTH, false)
            .clusterLimit(Action.DASHBOARD_API, 2, 60_000).clusterLease(Action.DASHBOARD_API, 2)
            .clusterFallbackLocal(Action.DASHBOARD_API, false).build();
    }

    /**
     * @return a started {@link ClusterWorker} on {@link #publishNode}'s configuration, checking "hot" from
     * {@code threads} threads for {@code runMs} once {@code go} exists; the caller awaits its READY.
     */
    public static ChildJvm startWorker(final Path file, final String uri, final long limit, final long windowMs,
        final long lease, final int threads, final long runMs, final Path go)
    {
        return ChildJvm.start(ClusterWorker.class, file.toString(), uri, "hot", Long.toString(limit),
            Long.toString(windowMs), Long.toString(lease), Integer.toString(threads), Long.toString(runMs),
            go.toString());
    }

    /**
     * @return a started {@link ClusterVictim} on {@link #publishNode}'s configuration for identifier "hot"; the
     * caller awaits its READY, then {@link #killMidRefill}.
     */
    public static ChildJvm startVictim(final Path file, final String uri, final long limit, final long windowMs,
        final long lease, final Path leaseGo, final Path spendGo)
    {
        return ChildJvm.start(ClusterVictim.class, file.toString(), uri, "hot", Long.toString(limit),
            Long.toString(windowMs), Long.toString(lease), leaseGo.toString(), spendGo.toString());
    }

    /**
     * Lets a READY victim take its first lease, stops its Redis (SIGSTOP), lets it spend below half a lease so its
     * refill is sent and left unanswered, SIGKILLs it, and resumes Redis.
     *
     * @return the victim's SPENT line, and when it was killed.
     */
    public static Killed killMidRefill(final ChildJvm victim, final LocalRedis redis, final Path leaseGo,
        final Path spendGo) throws IOException
    {
        Files.createFile(leaseGo);
        victim.awaitLine("LEASED", 60);
        redis.pause();
        try
        {
            Files.createFile(spendGo);
            final String spent = victim.awaitLine("SPENT", 60); // the refill it just started waits on the server
            final long atNanos = System.nanoTime();
            victim.kill();
            return new Killed(spent, atNanos);
        }
        finally
        {
            redis.resume();
        }
    }

    /** A victim killed mid-refill. @param spent its SPENT line. @param atNanos {@link System#nanoTime} at the kill. */
    public record Killed(String spent, long atNanos)
    {
    }

    /**
     * Awaits each worker's RESULT line (at most 120 s each) and asserts it counted no errors.
     *
     * @param results where the lines go, in the workers' order.
     * @return the admissions of all.
     */
    public static long admitted(final List<ChildJvm> workers, final List<String> results)
    {
        long admitted = 0;
        for (final ChildJvm worker : workers)
        {
            final String result = worker.awaitLine("RESULT", 120);
            results.add(result);
            assertEquals(0, Worker.field(result, "errors"), result);
            admitted += Worker.field(result, "admitted");
        }
        return admitted;
    }

    /** @return what the cluster's bucket allows from full at {@code startMs} to {@code endMs}: capacity and refill. */
    public static long allowance(final long limit, final long windowMs, final long startMs, final long endMs)
    {
        return limit + limit * (endMs - startMs) / windowMs;
    }

    /** Checks until one is admitted, at most 30 s: a lease reached the node (a loaded host may answer late). */
    public static void awaitAdmitted(final Floodgate gate, final String identifier, final Action action)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (gate.checkLimit(identifier, action) != Floodgate.ADMITTED)
        {
            assertTrue(System.nanoTime() - deadline < 0, action + " " + identifier + " got a lease within 30 s");
            Thread.sleep(20);
        }
    }

    /** One iteration of a checking thread. */
    @FunctionalInterface
    public interface Check
    {
        /** @param thread the thread's index, from 0. */
        void run(int thread) throws Exception;
    }

    /**
     * Runs {@code check} over and over on {@code threads} threads for {@code runMs}, and {@code meanwhile} on the
     * calling thread; then joins them and asserts no thread failed.
     */
    public static void hammer(final int threads, final long runMs, final Check check, final Runnable meanwhile)
        throws InterruptedException
    {
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        final List<Thread> started = new ArrayList<>();
        final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(runMs);
        for (int t = 0; t < threads; t++)
        {
            final int thread = t;
            started.add(new Thread(() ->
            {
                try
                {
                    while (System.nanoTime() - end < 0)
                    {
                        check.run(thread);
                    }
                }
                catch (final Throwable failure)
                {
                    failures.add(failure);
                }
            }));
        }
        started.forEach(Thread::start);
        try
        {
            meanwhile.run();
        }
        finally
        {
            for (final Thread thread : started)
            {
                thread.join();
            }
        }
        assertEquals(List.of(), failures);
    }
}
