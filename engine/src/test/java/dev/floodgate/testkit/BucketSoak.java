package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A soak of the token bucket across JVMs: {@link BucketSoakChild} JVMs hammer a few small bucket quotas of AUTH
 * and PUBLISH on one table while this JVM stops, continues, kills and replaces them and runs janitor passes
 * ({@link SoakDriver}), and publishes new limits and windows (PUBLISH also off, and a limit only the window door can
 * serve). Then {@link BucketBound} judges every quota's admissions. {@code BucketSoakTest} runs it for CI's time;
 * {@link #main} for as long as asked, after {@code mvn -B -q -o -pl engine test-compile dependency:build-classpath
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
    private static final long[][] AUTH_RULES = {{5, 1_000}, {10, 500}, {3, 300}, {8, 2_000}, {20, 1_000}, {6, 700}};
    private static final long[][] PUBLISH_RULES = {{4, 400}, {12, 1_000}, {6, 1_500}, {3, 200}, {5, 250}, {9, 900},
        {0, 1_000}, {2_187, 1_000}};

    private final Path dir;
    private final Random random;
    private final List<List<BucketBound.Regime>> regimes = List.of(new ArrayList<>(), new ArrayList<>());
    private Floodgate gate;

    private BucketSoak(final Path dir, final long seed)
    {
        this.dir = dir;
        this.random = new Random(seed);
    }

    public static void main(final String[] args) throws Exception
    {
        final long seed = args.length > 3 ? Long.parseLong(args[3]) : System.nanoTime();
        run(Path.of(args[0]), Long.parseLong(args[1]), args.length > 2 ? Integer.parseInt(args[2]) : 3, seed)
            .printAndExit();
    }

    /**
     * @param dir      where the table and the children's files go.
     * @param seconds  how long the children hammer.
     * @param children how many checker JVMs run at once.
     * @param seed     the parent's choices (the children's interleavings do not repeat).
     * @return what it did and found.
     */
    public static SoakDriver.Report run(final Path dir, final long seconds, final int children, final long seed)
        throws Exception
    {
        return new BucketSoak(dir, seed).soak(seconds, children, seed);
    }

    private FloodgateConfig config(final long[] auth, final long[] publish)
    {
        return SoakChild.config(dir.resolve("soak.map")).limit(Action.AUTH, auth[0], auth[1])
            .limit(Action.PUBLISH, publish[0], publish[1]).build();
    }

    private SoakDriver.Report soak(final long seconds, final int count, final long seed) throws Exception
    {
        try (Floodgate opened = Floodgate.open(config(AUTH_RULES[0], PUBLISH_RULES[0])))
        {
            gate = opened;
            regimes.get(0).add(new BucketBound.Regime(AUTH_RULES[0][0], AUTH_RULES[0][1], Long.MIN_VALUE,
                Long.MIN_VALUE));
            regimes.get(1).add(new BucketBound.Regime(PUBLISH_RULES[0][0], PUBLISH_RULES[0][1], Long.MIN_VALUE,
                Long.MIN_VALUE));
            final SoakDriver.Run run = SoakDriver.run(opened, dir, BucketSoakChild.class, SERIES.length, seconds,
                count, seed, random, this::publish);
            return judge(seed, seconds, count, run);
        }
    }

    private void publish()
    {
        final long[] auth = AUTH_RULES[random.nextInt(AUTH_RULES.length)];
        final long[] publish = PUBLISH_RULES[random.nextInt(PUBLISH_RULES.length)];
        final FloodgateConfig next = config(auth, publish);
        final long began = System.nanoTime();
        gate.reconfigure(next);
        final long returned = System.nanoTime();
        regimes.get(0).add(new BucketBound.Regime(auth[0], auth[1], began, returned));
        regimes.get(1).add(new BucketBound.Regime(publish[0], publish[1], began, returned));
    }

    private SoakDriver.Report judge(final long seed, final long seconds, final int count, final SoakDriver.Run run)
    {
        final StringBuilder summary = new StringBuilder(String.format("BUCKET-SOAK seed=%d seconds=%d children=%d %s",
            seed, seconds, count, run.figures()));
        final List<String> exceeded = new ArrayList<>();
        for (int s = 0; s < SERIES.length; s++)
        {
            final BucketBound.Verdict verdict = new BucketBound(regimes.get(ACTIONS[s] == Action.AUTH ? 0 : 1))
                .judge(run.calls().get(s));
            summary.append(String.format("%n  %s %s: admitted=%d intervals=%d skipped(off)=%d minSlack=%.3f",
                ACTIONS[s], SERIES[s], verdict.admitted(), verdict.intervals(), verdict.skipped(), verdict.minSlack()));
            if (verdict.exceeded())
            {
                exceeded.add(ACTIONS[s] + " " + SERIES[s] + ": " + verdict.worst());
            }
        }
        return new SoakDriver.Report(summary.toString(), exceeded, run.childErrors());
    }
}
