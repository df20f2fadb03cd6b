package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real separate JVMs mapping one file. Windows are a week long and limits far below a week's refill, so within
 * a test run the exact expectation is the limit itself (a straddled window boundary is detected and reported).
 */
@Timeout(240)
class MultiProcessTest
{
    private static final long WEEK_MS = FloodgateConfig.MAX_WINDOW_MS;

    @TempDir
    Path dir;

    private static long weekNumber()
    {
        return Math.floorDiv(System.nanoTime() / 1_000_000L, WEEK_MS);
    }

    private List<String> runTogether(final List<String[]> argsPerJvm, final Path go)
    {
        final List<ChildJvm> children = new ArrayList<>();
        try
        {
            for (final String[] args : argsPerJvm)
            {
                children.add(ChildJvm.start(Worker.class, args));
            }
            for (final ChildJvm child : children)
            {
                child.awaitLine("READY", 120);
            }
            Files.createFile(go);
            final List<String> results = new ArrayList<>();
            for (final ChildJvm child : children)
            {
                results.add(child.awaitLine("RESULT", 120));
                assertEquals(0, child.awaitExit(30), child.transcript());
            }
            return results;
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
        finally
        {
            children.forEach(ChildJvm::close);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"bucket", "window"})
    void shouldAdmitExactlyTheLimitAcrossThreeJvmsOnOneHotKey(final String door)
    {
        final long limit = 5_000;
        final Path file = dir.resolve("hot.map");
        final Path go = dir.resolve("go");
        final long before = weekNumber();
        final List<String[]> args = new ArrayList<>();
        for (int jvm = 0; jvm < 3; jvm++)
        {
            args.add(new String[] {file.toString(), door, "publish", "hot-user", Long.toString(limit),
                Long.toString(WEEK_MS), "4", "1000", go.toString()});
        }
        final List<String> results = runTogether(args, go);
        assertEquals(before, weekNumber(), "the run straddled a window boundary; rerun");
        long admitted = 0;
        long refused = 0;
        for (final String result : results)
        {
            assertEquals(0, Worker.field(result, "errors"), result);
            admitted += Worker.field(result, "admitted");
            refused += Worker.field(result, "refused");
        }
        assertEquals(limit, admitted, "exactly the limit in total: " + results);
        assertEquals(3 * 4 * 1000 - limit, refused);
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(200_000)
            .limit(Action.PUBLISH, limit, WEEK_MS).build()))
        {
            // a refusal whose blocked counter could not be reached in time (a JVM's first use of a segment loads
            // Chronicle's code under its guard) is counted as unreachable instead: once, in one of the two
            assertEquals(refused, gate.blockedCount("hot-user", Action.PUBLISH) +
                gate.stats().degraded().get(Action.PUBLISH), "every refusal was counted once");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"bucket", "window"})
    void shouldRefundNothingToAJvmThatRestartsMidWindow(final String door) throws Exception
    {
        final Path file = dir.resolve("restart.map");
        final String[] args = {file.toString(), door, "dashboard_auth", "restarter", "50", Long.toString(WEEK_MS), "1",
            "80", dir.resolve("go").toString()};
        Files.createFile(dir.resolve("go"));
        final long before = weekNumber();
        try (ChildJvm first = ChildJvm.start(Worker.class, args))
        {
            final String result = first.awaitLine("RESULT", 120);
            assertEquals(50, Worker.field(result, "admitted"), result);
            assertEquals(0, first.awaitExit(30));
        }
        try (ChildJvm second = ChildJvm.start(Worker.class, args))
        {
            final String result = second.awaitLine("RESULT", 120);
            assertEquals(0, Worker.field(result, "admitted"), "the restarted JVM got no refund: " + result);
            assertEquals(80, Worker.field(result, "refused"));
            assertEquals(0, second.awaitExit(30));
        }
        assertEquals(before, weekNumber(), "the run straddled a window boundary; rerun");
    }

    @Test
    void shouldReapInOneJvmWhileOthersCheckWithoutErrorsOrLostCounts()
    {
        final long limit = 3_000;
        final Path file = dir.resolve("janitor.map");
        final Path go = dir.resolve("go");
        final long before = weekNumber();
        final List<String[]> args = new ArrayList<>();
        for (int jvm = 0; jvm < 3; jvm++)
        {
            // every JVM churns short-lived SUBSCRIBE windows (20 ms); the third also runs janitor passes
            args.add(new String[] {file.toString(), "window", "publish", "hot-user", Long.toString(limit),
                Long.toString(WEEK_MS), "2", "20000", go.toString(), "400", jvm == 2 ? "8" : "0",
                Long.toString(FloodgateConfig.MIN_RECLAIM_GRACE_MS)});
        }
        final List<String> results = runTogether(args, go);
        assertEquals(before, weekNumber(), "the run straddled a window boundary; rerun");
        long admitted = 0;
        for (final String result : results)
        {
            assertEquals(0, Worker.field(result, "errors"), result);
            admitted += Worker.field(result, "admitted");
        }
        assertEquals(limit, admitted, "the hot key's count is exact while the janitor reaps: " + results);
        assertTrue(Worker.field(results.get(2), "reaped") > 0, "the janitor reaped churned entries: " + results);
    }
}
