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
     * 16 M per 1 ms: the bucket refills 16 tokens per nanosecond and the window allows 16 M per millisecond, far
     * beyond what 2 cores can consume, so the admitted paths never refuse. Near the window's 2^24 - 1 maximum,
     * and exactly representable by the bucket (limit / gcd(limit, window ns) = 16, within the engine's 1024).
     */
    static final long HOT_LIMIT = 16_000_000;
    static final long HOT_WINDOW_MS = 1;

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
     * Fails the trial when any check was refused: the admitted-path figures would otherwise silently mix in
     * the refused path. Every refusal creates or bumps a blocked counter, so none may exist.
     *
     * @param gate the gate after measurement.
     */
    static void requireNoRefusals(final Gate gate)
    {
        final long blocked = gate.floodgate.stats().blockedEntries();
        if (blocked != 0)
        {
            throw new IllegalStateException(blocked + " identifiers were refused during an admitted-path " +
                "benchmark: raise the limit or shorten the window");
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
