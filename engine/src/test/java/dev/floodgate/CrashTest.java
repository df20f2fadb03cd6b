package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.Survivor;
import dev.floodgate.testkit.Victim;
import dev.floodgate.testkit.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One JVM is killed with SIGKILL at random moments, mostly while it holds the table guard and Chronicle Map
 * segment locks (inserting, resetting, reaping), and restarted; three survivors keep checking throughout.
 * {@code -Dfloodgate.crash.kills=50} runs the long variant (the {@code long-tests} profile does).
 */
@Timeout(900)
class CrashTest
{
    private static final long LIMIT = 3_000;
    private static final String GRACE_MS = Long.toString(FloodgateConfig.MIN_RECLAIM_GRACE_MS);

    @TempDir
    Path dir;

    @Test
    void shouldKeepSurvivorsCheckingExactlyWhileAJvmIsKilledInsideTableOperations() throws Exception
    {
        final int kills = Integer.getInteger("floodgate.crash.kills", 6);
        final long seed = Long.getLong("floodgate.crash.seed", System.nanoTime());
        System.out.println("CrashTest seed=" + seed + " kills=" + kills);
        final Random random = new Random(seed);
        final Path file = dir.resolve("crash.map");
        final Path stop = dir.resolve("stop");
        final long started = System.nanoTime();
        final List<ChildJvm> survivors = new ArrayList<>();
        long victimWindow = 0;
        long victimBucket = 0;
        try
        {
            for (int i = 0; i < 3; i++)
            {
                survivors.add(ChildJvm.start(Survivor.class, file.toString(), Long.toString(LIMIT), "2",
                    stop.toString(), GRACE_MS));
            }
            for (final ChildJvm survivor : survivors)
            {
                survivor.awaitLine("READY", 120);
            }
            for (int k = 0; k < kills; k++)
            {
                try (ChildJvm victim = ChildJvm.start(Victim.class, file.toString(), Long.toString(LIMIT), GRACE_MS))
                {
                    victim.awaitLine("READY", 120);
                    Thread.sleep(50 + random.nextInt(500)); // the scenario: a kill at a random moment of its work
                    victim.kill();
                    for (final String line : victim.transcript().split("\n"))
                    {
                        victimWindow += line.equals("A window") ? 1 : 0;
                        victimBucket += line.equals("A bucket") ? 1 : 0;
                    }
                }
            }
            Files.createFile(stop);
            long windowAdmitted = victimWindow;
            long bucketAdmitted = victimBucket;
            long worstNanos = 0;
            for (final ChildJvm survivor : survivors)
            {
                final String result = survivor.awaitLine("RESULT", 120);
                assertEquals(0, survivor.awaitExit(30), survivor.transcript());
                assertEquals(0, Worker.field(result, "errors"), survivor.transcript());
                windowAdmitted += Worker.field(result, "windowAdmitted");
                bucketAdmitted += Worker.field(result, "bucketAdmitted");
                worstNanos = Math.max(worstNanos, Worker.field(result, "maxNanos"));
            }
            try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(200_000)
                .limit(Action.PUBLISH, LIMIT, FloodgateConfig.MAX_WINDOW_MS).build()))
            {
                final Stats stats = gate.stats();
                System.out.printf("CRASH kills=%d repairs=%d worstCheckMs=%.1f degraded=%d windowAdmitted=%d " +
                    "bucketAdmitted=%d entries=%d%n", kills, stats.guardRepairs(), worstNanos / 1e6,
                    stats.degradedChecks(), windowAdmitted, bucketAdmitted, stats.entries());
                // An admission the victim made but could not print before it died is not counted: at most one a
                // kill. The bucket refills one token every week / LIMIT (201.6 s): a long run earns some back.
                final long refilled = -Math.floorDiv(-(System.nanoTime() - started) * LIMIT,
                    FloodgateConfig.MAX_WINDOW_MS * 1_000_000L);
                // A check that cannot reach its entry in time is refused (the default unreachable rule): exact.
                assertTrue(windowAdmitted <= LIMIT && windowAdmitted >= LIMIT - kills, "window: " + windowAdmitted);
                assertTrue(bucketAdmitted <= LIMIT + refilled && bucketAdmitted >= LIMIT - kills,
                    "bucket: " + bucketAdmitted + ", refilled at most " + refilled);
                // the worst check is printed, not asserted: on a loaded host it measures the scheduler (a check
                // waits at most 50 ms for a segment; what it costs beyond is descheduling), which is the
                // benchmarks' business. That every check returned is asserted by the survivors' RESULT lines.
                assertTrue(stats.guardRepairs() >= 1, "some kills landed inside the guard and were repaired");
                assertTrue(gate.checkLimitInCaller("after-the-storm", Action.PUBLISH) == Floodgate.ADMITTED,
                    "the file is still usable");
                assertTrue(gate.checkLimitInCaller("hot-window", Action.PUBLISH) >= 1, "and still exact");
            }
        }
        finally
        {
            survivors.forEach(ChildJvm::close);
        }
    }
}
