package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;

/**
 * A soak's checker JVM ({@link SoakDriver} starts them): its threads hammer a few small quotas (series: identifier
 * and action) through a {@link Door} until the stop file appears, single checks, weighted ones and two-quota charges,
 * leaving each quota idle for a third of every {@link #QUIET_PERIOD_NANOS} period (the same phase in every JVM:
 * {@code System.nanoTime} is the host's monotonic clock) so the janitor finds idle entries to reap. Every call is
 * stamped before and after and kept in a {@link SoakLog}. Prints {@code READY pid} once the table is open and
 * {@code RESULT ops= admitted= windowOnly= errors=} at the end.
 *
 * <pre>args: file admissionsFile inflightFile stopFile seed threads</pre>
 */
public final class SoakChild
{
    public static final long QUIET_PERIOD_NANOS = 3_000_000_000L;
    public static final long CLEANUP_INTERVAL_MS = 500;
    public static final int MAX_COST = 3;

    /** One door's calls, made once the table is open. */
    public interface Door
    {
        /** @return the call's start stamp, read before it (monotonic ns). */
        long start();

        /** @return a series to charge with another, before its quiet phase is looked at. */
        int partner(Random random);

        /**
         * @param b {@code -1}: a check of {@code a} alone; else a charge of both.
         * @return the check's answer ({@link Floodgate#ADMITTED} or not).
         */
        long check(Random random, int a, long costA, int b, long costB);
    }

    private final Action[] actions;

    private SoakChild(final Action[] actions)
    {
        this.actions = actions;
    }

    /** @return the configuration every soak JVM opens the table with, before its limits. */
    public static FloodgateConfig.Builder config(final Path file)
    {
        return FloodgateConfig.builder().file(file).capacity(1_000)
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).cleanupIntervalMs(CLEANUP_INTERVAL_MS);
    }

    /**
     * Runs the child: opens the table adopting its policy, hammers, prints the result.
     *
     * @param args      the child's arguments (above).
     * @param actions   each series' action (the series of one action are picked in turn when one is quiet).
     * @param door      the door's calls on the open table.
     * @param windowOnly whether an {@link IllegalStateException} is expected (a limit the bucket cannot hold).
     */
    public static void run(final String[] args, final Action[] actions,
        final Function<Floodgate, Door> door, final boolean windowOnly) throws Exception
    {
        new SoakChild(actions).hammer(args, door, windowOnly);
    }

    private void hammer(final String[] args, final Function<Floodgate, Door> doors,
        final boolean windowOnlyExpected) throws Exception
    {
        final int threads = Integer.parseInt(args[5]);
        final SoakLog log = new SoakLog(Path.of(args[1]), Path.of(args[2]), threads);
        final Path stop = Path.of(args[3]);
        final long seed = Long.parseLong(args[4]);
        final AtomicLong ops = new AtomicLong();
        final AtomicLong admitted = new AtomicLong();
        final AtomicLong windowOnly = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        try (Floodgate gate = Floodgate.openAdopting(config(Path.of(args[0])).build()))
        {
            final Door door = doors.apply(gate);
            System.out.println("READY " + ProcessHandle.current().pid());
            System.out.flush();
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final int thread = t;
                final Random random = new Random(seed * 31 + t);
                workers.add(new Thread(() ->
                {
                    for (long seq = 1; (seq & 63) != 0 || !Files.exists(stop); seq++)
                    {
                        final int a = pickSeries(random.nextInt(actions.length));
                        final int b = pickSeries(door.partner(random));
                        if (a < 0)
                        {
                            LockSupport.parkNanos(1_000_000L);
                            continue;
                        }
                        final int op = random.nextInt(10);
                        final long costA = op < 5 ? 1 : 1 + random.nextInt(MAX_COST);
                        final boolean twoQuotas = op >= 8 && b >= 0 && b != a;
                        final long costB = twoQuotas ? 1 + random.nextInt(MAX_COST) : 0;
                        final long start = door.start();
                        log.begin(thread, seq, start, a, costA, twoQuotas ? b : -1, costB);
                        try
                        {
                            final long result = door.check(random, a, costA, twoQuotas ? b : -1, costB);
                            final long end = System.nanoTime();
                            ops.incrementAndGet();
                            if (result == Floodgate.ADMITTED)
                            {
                                admitted.incrementAndGet();
                                log.admitted(thread, seq, a, costA, twoQuotas ? b : -1, costB, start, end);
                            }
                        }
                        catch (final IllegalStateException ex)
                        {
                            windowOnly.incrementAndGet(); // a published limit the bucket cannot represent
                            if (!windowOnlyExpected)
                            {
                                errors.incrementAndGet();
                                ex.printStackTrace(System.out);
                            }
                        }
                        catch (final RuntimeException ex)
                        {
                            errors.incrementAndGet();
                            ex.printStackTrace(System.out);
                        }
                        log.end(thread);
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
     * @return the first series from {@code first} on (cyclically, among the series of its action) not in its quiet
     * third of {@link #QUIET_PERIOD_NANOS} (the janitor's chance at an idle entry), or -1.
     */
    private int pickSeries(final int first)
    {
        for (int i = 0; i < actions.length; i++)
        {
            final int series = (first + i) % actions.length;
            if (actions[series] == actions[first] &&
                Math.floorMod(System.nanoTime() / QUIET_PERIOD_NANOS + series, 3) != 0)
            {
                return series;
            }
        }
        return -1;
    }
}
