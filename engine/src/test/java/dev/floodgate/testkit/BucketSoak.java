package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A soak of the token bucket across JVMs: {@link BucketSoakChild} JVMs hammer a few small bucket quotas of AUTH
 * and PUBLISH on one table while this JVM, at random, stops and continues them (SIGSTOP for up to half a second,
 * one stop in ten past the reclaim grace), SIGKILLs one and starts another in its place, runs janitor passes, and
 * publishes new limits and windows (PUBLISH also off, and a limit only the window door can serve). Then
 * {@link BucketBound} judges every quota's admissions. {@code BucketSoakTest} runs it for CI's time; {@link #main}
 * for as long as asked, after {@code mvn -B -q -o -pl engine test-compile dependency:build-classpath
 * -Dmdep.outputFile=/tmp/cp.txt -Dmdep.includeScope=test}:
 *
 * <pre>
 * java $(cat engine/target/classes/dev/floodgate/jvm.flags) \
 *     -cp engine/target/test-classes:engine/target/classes:$(cat /tmp/cp.txt) \
 *     dev.floodgate.testkit.BucketSoak DIR SECONDS [CHILDREN] [SEED]
 * </pre>
 */
public final class BucketSoak
{
    /** The quotas: two AUTH (single and weighted checks), two PUBLISH (weighted). */
    static final String[] SERIES = {"10.0.0.1", "10.0.0.2", "user-a", "user-b"};
    static final Action[] ACTIONS = {Action.AUTH, Action.AUTH, Action.PUBLISH, Action.PUBLISH};
    static final int MAX_COST = 3;
    static final long QUIET_PERIOD_NANOS = 3_000_000_000L;
    static final long CLEANUP_INTERVAL_MS = 500;
    private static final int THREADS = 2;
    private static final long[][] AUTH_RULES = {{5, 1_000}, {10, 500}, {3, 300}, {8, 2_000}, {20, 1_000}, {6, 700}};
    private static final long[][] PUBLISH_RULES = {{4, 400}, {12, 1_000}, {6, 1_500}, {3, 200}, {5, 250}, {9, 900},
        {0, 1_000}, {2_187, 1_000}};

    private final Path dir;
    private final Random random;
    private final List<ChildJvm> children = new ArrayList<>();
    private final List<Path[]> files = new ArrayList<>(); // per child started: admissions, in-flight
    private final List<Long> killedAt = new ArrayList<>(); // per child started: when it was killed, or 0
    private final List<List<BucketBound.Regime>> regimes = List.of(new ArrayList<>(), new ArrayList<>());
    private long pauses;
    private long kills;
    private long publishes;
    private long cleanups;
    private long reaped;

    private BucketSoak(final Path dir, final long seed)
    {
        this.dir = dir;
        this.random = new Random(seed);
    }

    /** What a run did and found. */
    public record Report(String summary, List<String> exceeded, List<String> childErrors)
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final long seed = args.length > 3 ? Long.parseLong(args[3]) : System.nanoTime();
        final Report report = run(Path.of(args[0]), Long.parseLong(args[1]), args.length > 2 ?
            Integer.parseInt(args[2]) : 3, seed);
        System.out.println(report.summary());
        report.exceeded().forEach(System.out::println);
        report.childErrors().forEach(System.out::println);
        System.exit(report.exceeded().isEmpty() && report.childErrors().isEmpty() ? 0 : 1);
    }

    /**
     * @param dir      where the table and the children's files go.
     * @param seconds  how long the children hammer.
     * @param children how many checker JVMs run at once.
     * @param seed     the parent's choices (the children's interleavings do not repeat).
     * @return what it did and found.
     */
    public static Report run(final Path dir, final long seconds, final int children, final long seed) throws Exception
    {
        return new BucketSoak(dir, seed).soak(seconds, children, seed);
    }

    private FloodgateConfig config(final long[] auth, final long[] publish)
    {
        return FloodgateConfig.builder().file(dir.resolve("soak.map")).capacity(1_000)
            .limit(Action.AUTH, auth[0], auth[1]).limit(Action.PUBLISH, publish[0], publish[1])
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).cleanupIntervalMs(CLEANUP_INTERVAL_MS).build();
    }

    private Report soak(final long seconds, final int count, final long seed) throws Exception
    {
        final Path stop = dir.resolve("stop");
        final List<String> childErrors = new ArrayList<>();
        final Map<Integer, Long> stoppedUntil = new HashMap<>(); // child: when to continue it
        try (Floodgate gate = Floodgate.open(config(AUTH_RULES[0], PUBLISH_RULES[0])))
        {
            regimes.get(0).add(new BucketBound.Regime(AUTH_RULES[0][0], AUTH_RULES[0][1], Long.MIN_VALUE,
                Long.MIN_VALUE));
            regimes.get(1).add(new BucketBound.Regime(PUBLISH_RULES[0][0], PUBLISH_RULES[0][1], Long.MIN_VALUE,
                Long.MIN_VALUE));
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
                    publish(gate);
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
            return judge(seed, seconds, count, checks, childErrors);
        }
        finally
        {
            children.forEach(ChildJvm::close);
        }
    }

    private int start(final long seed, final Path stop)
    {
        final int c = children.size();
        final Path admissions = dir.resolve("admissions-" + c);
        final Path inflight = dir.resolve("inflight-" + c);
        final ChildJvm child = ChildJvm.start(BucketSoakChild.class, dir.resolve("soak.map").toString(),
            admissions.toString(), inflight.toString(), stop.toString(), Long.toString(seed * 1000 + c),
            Integer.toString(THREADS));
        children.add(child);
        files.add(new Path[] {admissions, inflight});
        killedAt.add(0L);
        return c; // a replacement is not awaited: a stop or a kill may land while it opens the table
    }

    private void publish(final Floodgate gate)
    {
        final long[] auth = AUTH_RULES[random.nextInt(AUTH_RULES.length)];
        final long[] publish = PUBLISH_RULES[random.nextInt(PUBLISH_RULES.length)];
        final FloodgateConfig next = config(auth, publish);
        final long began = System.nanoTime();
        gate.reconfigure(next);
        final long returned = System.nanoTime();
        regimes.get(0).add(new BucketBound.Regime(auth[0], auth[1], began, returned));
        regimes.get(1).add(new BucketBound.Regime(publish[0], publish[1], began, returned));
        publishes++;
    }

    private Report judge(final long seed, final long seconds, final int count, final long checks,
        final List<String> childErrors) throws Exception
    {
        final List<List<BucketBound.Call>> calls = new ArrayList<>();
        for (int s = 0; s < SERIES.length; s++)
        {
            calls.add(new ArrayList<>());
        }
        long inFlight = 0;
        for (int c = 0; c < children.size(); c++)
        {
            final Set<String> written = new HashSet<>();
            if (!Files.exists(files.get(c)[0]) || !Files.exists(files.get(c)[1]))
            {
                continue; // killed before it opened its files: it checked nothing
            }
            for (final String line : Files.readAllLines(files.get(c)[0], StandardCharsets.US_ASCII))
            {
                final String[] f = line.split(" ");
                if (f.length != 6)
                {
                    continue; // a line a SIGKILL cut short: its call's slot is still set
                }
                written.add(f[0] + " " + f[1]);
                calls.get(Integer.parseInt(f[2])).add(new BucketBound.Call(Long.parseLong(f[3]), Long.parseLong(f[4]),
                    Long.parseLong(f[5]), true));
            }
            if (killedAt.get(c) == 0)
            {
                continue;
            }
            // big-endian, as the child mapped it
            final ByteBuffer slots = ByteBuffer.wrap(Files.readAllBytes(files.get(c)[1]));
            for (int t = 0; t < THREADS && slots.capacity() == THREADS * BucketSoakChild.SLOT_BYTES; t++)
            {
                final int slot = t * BucketSoakChild.SLOT_BYTES;
                final long seq = slots.getLong(slot);
                if (seq != 0 && !written.contains(t + " " + seq))
                {
                    inFlight++;
                    calls.get(slots.getInt(slot + 16)).add(new BucketBound.Call(slots.getLong(slot + 24),
                        slots.getLong(slot + 8), killedAt.get(c), false));
                    if (slots.getInt(slot + 32) >= 0)
                    {
                        calls.get(slots.getInt(slot + 32)).add(new BucketBound.Call(slots.getLong(slot + 40),
                            slots.getLong(slot + 8), killedAt.get(c), false));
                    }
                }
            }
        }
        final StringBuilder summary = new StringBuilder(String.format(
            "BUCKET-SOAK seed=%d seconds=%d children=%d threads=%d checks=%d pauses=%d kills=%d publishes=%d " +
                "cleanups=%d reaped=%d inFlightAtKill=%d (checks: of the children that ran to the end)", seed, seconds,
            count, THREADS, checks, pauses, kills, publishes, cleanups, reaped, inFlight));
        final List<String> exceeded = new ArrayList<>();
        for (int s = 0; s < SERIES.length; s++)
        {
            final BucketBound.Verdict verdict = new BucketBound(regimes.get(ACTIONS[s] == Action.AUTH ? 0 : 1))
                .judge(calls.get(s));
            summary.append(String.format("%n  %s %s: admitted=%d intervals=%d skipped(off)=%d minSlack=%.3f",
                ACTIONS[s], SERIES[s], verdict.admitted(), verdict.intervals(), verdict.skipped(), verdict.minSlack()));
            if (verdict.exceeded())
            {
                exceeded.add(ACTIONS[s] + " " + SERIES[s] + ": " + verdict.worst());
            }
        }
        return new Report(summary.toString(), exceeded, childErrors);
    }
}
