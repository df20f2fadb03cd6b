package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A JVM that must not notice its neighbours crashing: until the stop file appears, its threads check two hot
 * keys (one per door, week-long windows) and churn new keys (so they take the table guard often), and one
 * thread runs a janitor pass every 50 ms (the victim runs them back to back). Prints {@code READY}, then {@code RESULT} with every admission counted, the
 * errors, and the slowest single check in nanoseconds.
 *
 * <p>In {@code quiet} mode it first churns 200 short-lived keys, then its threads only check the warm hot
 * window key and no janitor runs: after {@code READY} it holds addresses but never the table guard.
 *
 * <pre>args: file limit threads stopFile graceMs [quiet]</pre>
 */
public final class Survivor
{
    private Survivor()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[0]);
        final long limit = Long.parseLong(args[1]);
        final int threads = Integer.parseInt(args[2]);
        final Path stop = Path.of(args[3]);
        final long graceMs = Long.parseLong(args[4]);
        final boolean quiet = args.length > 5 && args[5].equals("quiet");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(200_000)
            .limit(Action.PUBLISH, limit, FloodgateConfig.MAX_WINDOW_MS)
            .limit(Action.AUTH, limit, FloodgateConfig.MAX_WINDOW_MS)
            .limit(Action.SUBSCRIBE, 1_000, 20)
            .reclaimGraceMs(graceMs).build();
        final String pid = Long.toString(ProcessHandle.current().pid());
        try (Floodgate gate = Floodgate.open(config))
        {
            gate.checkLimit("warm-up", Action.DASHBOARD_AUTH);
            if (quiet)
            {
                for (int i = 0; i < 200; i++)
                {
                    gate.checkLimitInCaller("touched-" + pid + "-" + i, Action.SUBSCRIBE);
                }
                gate.checkLimitInCaller("hot-window", Action.PUBLISH);
            }
            System.out.println("READY " + pid);
            System.out.flush();
            final AtomicLong windowAdmitted = new AtomicLong();
            final AtomicLong bucketAdmitted = new AtomicLong();
            final AtomicLong checks = new AtomicLong();
            final AtomicLong errors = new AtomicLong();
            final AtomicLong maxNanos = new AtomicLong();
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final int thread = t;
                workers.add(new Thread(() ->
                {
                    long i = 0;
                    while (!Files.exists(stop))
                    {
                        for (int batch = 0; batch < 200; batch++, i++)
                        {
                            try
                            {
                                if (quiet)
                                {
                                    if (gate.checkLimitInCaller("hot-window", Action.PUBLISH) == Floodgate.ADMITTED)
                                    {
                                        windowAdmitted.incrementAndGet();
                                    }
                                    checks.incrementAndGet();
                                    continue;
                                }
                                long start = System.nanoTime();
                                if (gate.checkLimitInCaller("hot-window", Action.PUBLISH) == Floodgate.ADMITTED)
                                {
                                    windowAdmitted.incrementAndGet();
                                }
                                long took = System.nanoTime() - start;
                                start = System.nanoTime();
                                if (gate.checkLimit("hot-bucket", Action.AUTH) == Floodgate.ADMITTED)
                                {
                                    bucketAdmitted.incrementAndGet();
                                }
                                took = Math.max(took, System.nanoTime() - start);
                                start = System.nanoTime();
                                gate.checkLimitInCaller("churn-" + pid + "-" + thread + "-" + i, Action.SUBSCRIBE);
                                took = Math.max(took, System.nanoTime() - start);
                                maxNanos.accumulateAndGet(took, Math::max);
                                checks.addAndGet(3);
                            }
                            catch (final RuntimeException ex)
                            {
                                errors.incrementAndGet();
                                ex.printStackTrace(System.out);
                            }
                        }
                    }
                }, "check-" + t));
            }
            final Thread janitor = new Thread(() ->
            {
                while (!Files.exists(stop))
                {
                    try
                    {
                        gate.cleanup();
                        java.util.concurrent.locks.LockSupport.parkNanos(50_000_000L); // passes every 50 ms
                    }
                    catch (final RuntimeException ex)
                    {
                        errors.incrementAndGet();
                        ex.printStackTrace(System.out);
                    }
                }
            }, "janitor");
            workers.forEach(Thread::start);
            if (!quiet)
            {
                janitor.start();
            }
            for (final Thread worker : workers)
            {
                worker.join();
            }
            if (!quiet)
            {
                janitor.join();
            }
            System.out.println("RESULT windowAdmitted=" + windowAdmitted.get() + " bucketAdmitted=" +
                bucketAdmitted.get() + " checks=" + checks.get() + " errors=" + errors.get() + " maxNanos=" +
                maxNanos.get());
        }
    }
}
