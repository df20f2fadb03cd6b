package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.store.PolicyRegion;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A soak of the sharded window across JVMs: {@link WindowSoakChild} JVMs hammer a few small window quotas of
 * PUBLISH, SUBSCRIBE and DASHBOARD_API on one table while this JVM stops, continues, kills and replaces them and
 * runs janitor passes ({@link SoakDriver}), and publishes new limits and windows for the three actions at once
 * (each also off, and windows of 10 to 20 ms, whose boundaries the JVMs' coarse clocks pass a tick apart), tens of
 * milliseconds apart, so several changes land inside one window and off/on flips happen, recording the regimes each
 * publish left in the file. Then {@link WindowBound} judges every quota's admissions
 * against the windows of the regimes that came into force. {@code WindowSoakTest} runs it for CI's time;
 * {@link #main} for as long as asked, as {@code BucketSoak.main} (its Javadoc has the command):
 * {@code dev.floodgate.testkit.WindowSoak DIR SECONDS [CHILDREN] [SEED]}; with {@code -Dfloodgate.soak.debug=true}
 * a quota found over its bound leaves its regimes and calls in {@code DIR/debug-SERIES} to be looked at.
 */
public final class WindowSoak
{
    /** The quotas: two identifiers of each action. */
    static final String[] SERIES = {"user-a", "user-b", "user-a", "user-c", "session-1", "session-2"};
    static final Action[] ACTIONS = {Action.PUBLISH, Action.PUBLISH, Action.SUBSCRIBE, Action.SUBSCRIBE,
        Action.DASHBOARD_API, Action.DASHBOARD_API};
    private static final Action[] CHANGED = {Action.PUBLISH, Action.SUBSCRIBE, Action.DASHBOARD_API};
    private static final long[][][] RULES = {
        {{5, 200}, {10, 500}, {3, 100}, {8, 300}, {20, 1_000}, {0, 200}, {4, 50}, {12, 250}, {3, 10}},
        {{6, 300}, {15, 1_000}, {2, 100}, {9, 400}, {0, 500}, {5, 150}, {30, 2_000}, {2, 20}},
        {{10, 500}, {4, 200}, {7, 250}, {25, 1_000}, {0, 300}, {3, 100}, {5, 15}}};

    private final Path dir;
    private final Random random;
    private final List<List<WindowBound.Regime>> regimes = List.of(new ArrayList<>(), new ArrayList<>(),
        new ArrayList<>());
    private Floodgate gate;
    private EngineTap tap;

    private WindowSoak(final Path dir, final long seed)
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
        return new WindowSoak(dir, seed).soak(seconds, children, seed);
    }

    private FloodgateConfig config(final long[][] rules)
    {
        final FloodgateConfig.Builder builder = SoakChild.config(dir.resolve("soak.map"));
        for (int a = 0; a < CHANGED.length; a++)
        {
            builder.limit(CHANGED[a], rules[a][0], rules[a][1]);
        }
        return builder.build();
    }

    private SoakDriver.Report soak(final long seconds, final int count, final long seed) throws Exception
    {
        try (Floodgate opened = Floodgate.open(config(new long[][] {RULES[0][0], RULES[1][0], RULES[2][0]})))
        {
            gate = opened;
            tap = new EngineTap(opened);
            record(Long.MIN_VALUE);
            final SoakDriver.Run run = SoakDriver.run(opened, dir, WindowSoakChild.class, SERIES.length, seconds,
                count, seed, random, this::publish);
            return judge(seed, seconds, count, run);
        }
    }

    private void publish()
    {
        final long[][] rules = new long[CHANGED.length][];
        for (int a = 0; a < CHANGED.length; a++)
        {
            rules[a] = RULES[a][random.nextInt(RULES[a].length)];
        }
        gate.reconfigure(config(rules));
        record(System.nanoTime());
    }

    /** The parent is the only publisher: the file's blocks now are the ones its publish wrote. */
    private void record(final long returnedNanos)
    {
        for (int a = 0; a < CHANGED.length; a++)
        {
            final PolicyRegion.Block block = tap.block(CHANGED[a]);
            regimes.get(a).add(new WindowBound.Regime(block.limit(), block.windowMs(), block.epochMs(),
                block.base(), returnedNanos));
        }
    }

    private SoakDriver.Report judge(final long seed, final long seconds, final int count, final SoakDriver.Run run)
    {
        final StringBuilder summary = new StringBuilder(String.format("WINDOW-SOAK seed=%d seconds=%d children=%d %s",
            seed, seconds, count, run.figures()));
        final List<String> exceeded = new ArrayList<>();
        for (int s = 0; s < SERIES.length; s++)
        {
            final int a = List.of(CHANGED).indexOf(ACTIONS[s]);
            final WindowBound bound = new WindowBound(regimes.get(a));
            final WindowBound.Verdict verdict = bound.judge(run.calls().get(s));
            summary.append(String.format("%n  %s %s: admitted=%d (off=%d) regimes=%d windows=%d full=%d " +
                "inFlightAtKill=%d", ACTIONS[s], SERIES[s], verdict.admitted(), verdict.uncounted(),
                bound.timeline().size(), verdict.windows(),
                verdict.full(), verdict.unknown()));
            if (verdict.exceeded())
            {
                if (Boolean.getBoolean("floodgate.soak.debug"))
                {
                    debug(s, a, run.calls().get(s));
                }
                exceeded.add(ACTIONS[s] + " " + SERIES[s] + ": " + verdict.worst());
            }
        }
        return new SoakDriver.Report(summary.toString(), exceeded, run.childErrors());
    }

    /** Lines {@code R limit windowMs epochMs base returnedNanos} and {@code C cost start end happened}. */
    private void debug(final int s, final int a, final List<SoakCall> calls)
    {
        try (PrintWriter out = new PrintWriter(dir.resolve("debug-" + s).toFile()))
        {
            regimes.get(a).forEach(r -> out.println("R " + r.limit() + " " + r.windowMs() + " " + r.epochMs() + " " +
                r.base() + " " + r.returnedNanos()));
            calls.forEach(c -> out.println("C " + c.cost() + " " + c.start() + " " + c.end() + " " + c.happened()));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
