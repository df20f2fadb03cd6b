package dev.floodgate.jmh;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * What the benchmarks share: a Floodgate on a private temporary directory (never /dev/shm) that
 * {@link #close} removes again, and the limits that keep the admitted paths admitted.
 */
final class Fixtures
{
    /** The hot action of the admitted-path benchmarks. */
    static final Action HOT = Action.PUBLISH;

    /** Switched off (limit 0 by default): checks return before touching the table. */
    static final Action UNCONFIGURED = Action.SUBSCRIBE;

    /** The refused-path action: configured with a limit of 1 in a long window, exhausted in setup. */
    static final Action REFUSED = Action.DASHBOARD_API;

    /**
     * 16 M per 100 ms: the bucket refills 160 tokens per microsecond and the window allows 16 M per 100 ms, far
     * beyond what 2 cores can consume, so the admitted paths do not refuse for want of tokens. Near the window's
     * 2^24 - 1 maximum, and exactly representable by the bucket (limit / gcd(limit, window ns) = 4, within the
     * engine's 1024). Not 1 ms: the bucket treats a caller whose clock reading lags the last writer's by more
     * than one window as facing an empty bucket, and a thread descheduled between its clock read and its
     * compare-and-set (2+ threads on 2 loaded cores) lagged 1 ms often enough to be refused.
     */
    static final long HOT_LIMIT = 16_000_000;
    static final long HOT_WINDOW_MS = 100;

    /**
     * Refusals an admitted-path trial tolerates (and reports) before it fails: a few stale-clock refusals among
     * 10^8 checks do not change the figure; more would mean the benchmark measures the refused path.
     */
    static final long TOLERATED_REFUSALS = 1_000;

    private Fixtures()
    {
    }

    /** A Floodgate with its directory, deleted on close. */
    static final class Gate implements AutoCloseable
    {
        final Path dir;
        final Floodgate floodgate;

        Gate(final Path dir, final Floodgate floodgate)
        {
            this.dir = dir;
            this.floodgate = floodgate;
        }

        @Override
        public void close()
        {
            try
            {
                floodgate.close();
            }
            finally
            {
                deleteTree(dir);
            }
        }
    }

    /**
     * @param capacity table entries.
     * @return a Floodgate with {@link #HOT} at {@link #HOT_LIMIT} per {@link #HOT_WINDOW_MS} and {@link #REFUSED}
     * at 1 per hour, on a new temporary file.
     */
    static Gate open(final long capacity)
    {
        final Path dir = tempDir();
        try
        {
            final FloodgateConfig config = FloodgateConfig.builder()
                .file(dir.resolve("floodgate.map"))
                .capacity(capacity)
                .limit(HOT, HOT_LIMIT, HOT_WINDOW_MS)
                .limit(REFUSED, 1, 3_600_000)
                .build();
            return new Gate(dir, Floodgate.open(config));
        }
        catch (final RuntimeException | Error ex)
        {
            deleteTree(dir);
            throw ex;
        }
    }

    /** A setup step that may throw. */
    interface Step
    {
        void run(Gate gate) throws Exception;
    }

    /**
     * Opens a gate and runs the setup's checks on it, closing it (and deleting its file) when they throw: JMH
     * runs no tear-down after a failed setup, so nothing else would.
     *
     * @param capacity table entries.
     * @param step     the rest of the setup.
     * @return the open gate.
     */
    static Gate openAnd(final long capacity, final Step step)
    {
        final Gate gate = open(capacity);
        try
        {
            step.run(gate);
            return gate;
        }
        catch (final Exception | Error ex)
        {
            gate.close();
            if (ex instanceof RuntimeException runtime)
            {
                throw runtime;
            }
            if (ex instanceof Error error)
            {
                throw error;
            }
            throw new IllegalStateException(ex);
        }
    }

    static Path tempDir()
    {
        try
        {
            // java.io.tmpdir, not /dev/shm: nothing may be left in shared memory if a fork is killed
            return Files.createTempDirectory("floodgate-jmh-");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    static void deleteTree(final Path dir)
    {
        if (dir == null || !Files.exists(dir))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Fails the trial when checks were refused beyond {@link #TOLERATED_REFUSALS}: the admitted-path figures
     * would otherwise silently mix in the refused path. Every refusal bumps the identifier's blocked counter.
     * Refusals within the tolerance are printed, so they are seen in the JMH log.
     *
     * @param gate        the gate after measurement.
     * @param identifiers the identifiers the benchmark checked.
     */
    static void requireNoRefusals(final Gate gate, final String... identifiers)
    {
        long refused = 0;
        for (final String identifier : identifiers)
        {
            refused += gate.floodgate.blockedCount(identifier, HOT);
        }
        final long blockedEntries = gate.floodgate.stats().blockedEntries();
        if (refused > TOLERATED_REFUSALS || blockedEntries > TOLERATED_REFUSALS)
        {
            throw new IllegalStateException(refused + " refusals (" + blockedEntries + " identifiers) during an " +
                "admitted-path benchmark: raise the limit or shorten the window");
        }
        if (refused > 0 || blockedEntries > 0)
        {
            System.out.println("NOTE: " + refused + " refusals of the checked identifiers, " + blockedEntries +
                " identifiers with a blocked counter, during an admitted-path trial (tolerated up to " +
                TOLERATED_REFUSALS + ")");
        }
    }

    /**
     * @param result a check's result.
     * @param what   the check, for the message.
     */
    static void requireAdmitted(final long result, final String what)
    {
        if (result != Floodgate.ADMITTED)
        {
            throw new IllegalStateException(what + " was refused (retry after " + result + " ms) in the sanity check");
        }
    }
}
