package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A broker-like child JVM: opens the file, prints {@code READY}, waits for the go file, then runs its threads
 * against one hot key and prints {@code RESULT admitted=N refused=M errors=E maxNanos=X}. Every admitted check
 * is counted, never sampled.
 *
 * <pre>
 * args: file door(bucket|window) action identifier limit windowMs threads checksPerThread goFile [extraKeys] [janitorPasses graceMs]
 * </pre>
 * With {@code extraKeys > 0} each thread also checks that many distinct short-lived SUBSCRIBE keys (20 ms
 * windows: churn for the janitor); with {@code janitorPasses > 0} the worker runs that many janitor passes while its threads check.
 */
public final class Worker
{
    private Worker()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[0]);
        final boolean bucket = args[1].equals("bucket");
        final Action action = Action.parse(args[2]);
        final String identifier = args[3];
        final long limit = Long.parseLong(args[4]);
        final long windowMs = Long.parseLong(args[5]);
        final int threads = Integer.parseInt(args[6]);
        final long checks = Long.parseLong(args[7]);
        final Path go = Path.of(args[8]);
        final int extraKeys = args.length > 9 ? Integer.parseInt(args[9]) : 0;
        final int janitorPasses = args.length > 10 ? Integer.parseInt(args[10]) : 0;
        final long graceMs = args.length > 11 ? Long.parseLong(args[11]) : FloodgateConfig.DEFAULT_RECLAIM_GRACE_MS;

        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(200_000)
            .limit(Action.SUBSCRIBE, 1_000, 20).limit(action, limit, windowMs).reclaimGraceMs(graceMs)
            .cleanupIntervalMs(FloodgateConfig.MAX_CLEANUP_INTERVAL_MS).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            gate.checkLimit("warm-up", Action.DASHBOARD_AUTH); // load and link everything before the race
            System.out.println("READY " + ProcessHandle.current().pid());
            System.out.flush();
            GoFile.await(go);
            final AtomicLong admitted = new AtomicLong();
            final AtomicLong refused = new AtomicLong();
            final AtomicLong errors = new AtomicLong();
            final AtomicLong maxNanos = new AtomicLong();
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final int thread = t;
                workers.add(new Thread(() ->
                {
                    for (long i = 0; i < checks; i++)
                    {
                        try
                        {
                            final long start = System.nanoTime();
                            final long result = bucket ? gate.checkLimit(identifier, action) :
                                gate.checkLimitInCaller(identifier, action);
                            maxNanos.accumulateAndGet(System.nanoTime() - start, Math::max);
                            (result == Floodgate.ADMITTED ? admitted : refused).incrementAndGet();
                            if (extraKeys > 0)
                            {
                                final String churn = "churn-" + ProcessHandle.current().pid() + "-" + thread + "-" +
                                    (i % extraKeys);
                                gate.checkLimitInCaller(churn, Action.SUBSCRIBE);
                            }
                        }
                        catch (final RuntimeException ex)
                        {
                            errors.incrementAndGet();
                            ex.printStackTrace(System.out);
                        }
                    }
                }, "check-" + t));
            }
            workers.forEach(Thread::start);
            int reaped = 0;
            for (int pass = 0; pass < janitorPasses; pass++)
            {
                reaped += gate.cleanup();
                LockSupport.parkNanos(graceMs * 1_000_000L / 2); // paces passes in real time, as the janitor thread does
            }
            for (final Thread worker : workers)
            {
                worker.join();
            }
            System.out.println("RESULT admitted=" + admitted.get() + " refused=" + refused.get() + " errors=" +
                errors.get() + " maxNanos=" + maxNanos.get() + " reaped=" + reaped);
        }
    }

    /**
     * @param line a RESULT line.
     * @param name a field.
     * @return its value.
     */
    public static long field(final String line, final String name)
    {
        for (final String part : line.split(" "))
        {
            if (part.startsWith(name + "="))
            {
                return Long.parseLong(part.substring(name.length() + 1));
            }
        }
        throw new AssertionError("no " + name + " in " + line);
    }
}
