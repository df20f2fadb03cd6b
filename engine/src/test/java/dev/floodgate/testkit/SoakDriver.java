package dev.floodgate.testkit;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The parent of a soak across JVMs ({@code BucketSoak}, {@code WindowSoak}): runs {@link SoakChild} JVMs on the
 * parent's table while it, at random, stops and continues them (SIGSTOP for up to half a second, one stop in ten past
 * the reclaim grace), SIGKILLs one and starts another in its place (at least once, by half time), runs janitor passes
 * and publishes policy changes (the soak's own). Then collects every child's calls ({@link SoakLog}) for the soak's
 * judge. The seed repeats the parent's choices, not the interleavings.
 */
public final class SoakDriver
{
    /** Checker threads per child JVM: 2, or {@code -Dfloodgate.soak.threads=N} for a longer run's variety. */
    public static final int THREADS = Integer.getInteger("floodgate.soak.threads", 2);

    private final Floodgate gate;
    private final Path dir;
    private final Class<?> childClass;
    private final Random random;
    private final Runnable publish;
    private final List<ChildJvm> children = new ArrayList<>();
    private final List<Long> killedAt = new ArrayList<>(); // per child started: when it was killed, or 0
    private long pauses;
    private long kills;
    private long publishes;
    private long cleanups;
    private long reaped;

    private SoakDriver(final Floodgate gate, final Path dir, final Class<?> childClass, final Random random,
        final Runnable publish)
    {
        this.gate = gate;
        this.dir = dir;
        this.childClass = childClass;
        this.random = random;
        this.publish = publish;
    }

    /** What the children did, and every call of theirs on each series. */
    public record Run(long checks, long pauses, long kills, long publishes, long cleanups, long reaped, long inFlight,
        List<List<SoakCall>> calls, List<String> childErrors)
    {
        /** @return the figures, one line. */
        public String figures()
        {
            return String.format("threads=%d checks=%d pauses=%d kills=%d publishes=%d cleanups=%d reaped=%d " +
                "inFlightAtKill=%d (checks: of the children that ran to the end)", THREADS, checks, pauses, kills,
                publishes, cleanups, reaped, inFlight);
        }
    }

    /** What a soak did and found. */
    public record Report(String summary, List<String> exceeded, List<String> childErrors)
    {
        /** Prints the report and exits: 0 when nothing was exceeded and no child failed, else 1. */
        public void printAndExit()
        {
            System.out.println(summary);
            exceeded.forEach(System.out::println);
            childErrors.forEach(System.out::println);
            System.exit(exceeded.isEmpty() && childErrors.isEmpty() ? 0 : 1);
        }
    }

    /**
     * @param gate       the parent's instance on {@code dir/soak.map}, its policy published.
     * @param childClass a main class running {@link SoakChild#run}.
     * @param series     how many series the children check.
     * @param seconds    how long the children hammer.
     * @param count      how many checker JVMs run at once.
     * @param seed       the children's seeds.
     * @param random     the parent's choices (shared with {@code publish}).
     * @param publish    publishes one policy change and records it.
     * @return what they did.
     */
    public static Run run(final Floodgate gate, final Path dir, final Class<?> childClass, final int series,
        final long seconds, final int count, final long seed, final Random random, final Runnable publish)
        throws Exception
    {
        return new SoakDriver(gate, dir, childClass, random, publish).soak(series, seconds, count, seed);
    }

    private Run soak(final int series, final long seconds, final int count, final long seed) throws Exception
    {
        final Path stop = dir.resolve("stop");
        final List<String> childErrors = new ArrayList<>();
        final Map<Integer, Long> stoppedUntil = new HashMap<>(); // child: when to continue it
        try
        {
            final List<Integer> running = new ArrayList<>();
            for (int c = 0; c < count; c++)
            {
                running.add(start(seed, stop));
            }
            for (final int c : running)
            {
                children.get(c).awaitLine("READY", 120);
            }
            final long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            while (System.nanoTime() < end)
            {
                final long now = System.nanoTime();
                for (final int c : List.copyOf(running))
                {
                    if (!ProcessHandle.of(children.get(c).pid()).map(ProcessHandle::isAlive).orElse(false))
                    {
                        // it ended by itself: an error to report, and its calls in flight are judged as a kill's
                        childErrors.add("child " + c + " ended by itself: " + children.get(c).transcript());
                        killedAt.set(c, System.nanoTime());
                        stoppedUntil.remove(c);
                        running.remove((Integer) c);
                        running.add(start(seed, stop));
                    }
                }
                for (final int c : running)
                {
                    if (stoppedUntil.containsKey(c) && now - stoppedUntil.get(c) >= 0)
                    {
                        Signals.send("CONT", children.get(c).pid());
                        stoppedUntil.remove(c);
                    }
                }
                final int choice = random.nextInt(100);
                final int victim = running.get(random.nextInt(running.size()));
                if (choice < 30 && !stoppedUntil.containsKey(victim))
                {
                    Signals.send("STOP", children.get(victim).pid());
                    // one stop in ten outlasts the reclaim grace: the janitors must see a frozen process then
                    stoppedUntil.put(victim, now + TimeUnit.MILLISECONDS.toNanos(random.nextInt(10) == 0 ?
                        FloodgateConfig.MIN_RECLAIM_GRACE_MS + random.nextInt(1_500) : 10 + random.nextInt(500)));
                    pauses++;
                }
                else if (choice < 50)
                {
                    reaped += gate.cleanup();
                    cleanups++;
                }
                else if (choice < 65)
                {
                    publish.run();
                    publishes++;
                }
                else if (random.nextInt(1_000) < 3 || kills == 0 && end - now < TimeUnit.SECONDS.toNanos(seconds) / 2)
                {
                    children.get(victim).kill(); // at least once, by half time
                    killedAt.set(victim, System.nanoTime());
                    stoppedUntil.remove(victim);
                    running.remove((Integer) victim);
                    running.add(start(seed, stop));
                    kills++;
                }
                // the scenario's pace: an operator's and a scheduler's events, tens of milliseconds apart
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5 + random.nextInt(25)));
            }
            for (final int c : running)
            {
                if (stoppedUntil.containsKey(c))
                {
                    Signals.send("CONT", children.get(c).pid());
                }
            }
            Files.createFile(stop);
            long checks = 0;
            for (final int c : running)
            {
                final ChildJvm child = children.get(c);
                final String result = child.awaitLine("RESULT", 120);
                if (child.awaitExit(60) != 0 || Worker.field(result, "errors") != 0)
                {
                    childErrors.add("child " + c + ": " + child.transcript());
                }
                checks += Worker.field(result, "ops");
            }
            final List<List<SoakCall>> calls = new ArrayList<>();
            for (int s = 0; s < series; s++)
            {
                calls.add(new ArrayList<>());
            }
            long inFlight = 0;
            for (int c = 0; c < children.size(); c++)
            {
                inFlight += SoakLog.read(dir.resolve("admissions-" + c), dir.resolve("inflight-" + c), THREADS,
                    killedAt.get(c), calls);
            }
            return new Run(checks, pauses, kills, publishes, cleanups, reaped, inFlight, calls, childErrors);
        }
        finally
        {
            children.forEach(ChildJvm::close);
        }
    }

    private int start(final long seed, final Path stop)
    {
        final int c = children.size();
        children.add(ChildJvm.start(childClass, dir.resolve("soak.map").toString(),
            dir.resolve("admissions-" + c).toString(), dir.resolve("inflight-" + c).toString(), stop.toString(),
            Long.toString(seed * 1000 + c), Integer.toString(THREADS)));
        killedAt.add(0L);
        return c; // a replacement is not awaited: a stop or a kill may land while it opens the table
    }
}
