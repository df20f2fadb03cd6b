package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.Signals;
import dev.floodgate.testkit.Survivor;
import dev.floodgate.testkit.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process frozen with SIGSTOP for several grace periods holds addresses it may still write: the janitor
 * must not remove a single entry while it is frozen, nor in the grace period after it thaws (its heartbeat is
 * fresh at once, but a thread of it may still be about to write), and reaps once it is gone.
 */
@Timeout(180)
class FreezeTest
{
    private static final long GRACE_MS = FloodgateConfig.MIN_RECLAIM_GRACE_MS;
    /**
     * The entries are tombstoned at the freeze's start, so a janitor blind to the frozen process reaps them once
     * they are a grace old, as its heartbeat goes stale: every pass of the second and third grace periods would
     * (checked: with the frozen-process test taken out of {@code Janitor}, this test fails there). Five, chosen
     * when the grace was 300 ms, cost 10 s at the 2 s minimum grace.
     */
    private static final long FROZEN_GRACES = 3;

    @TempDir
    Path dir;

    @Test
    void shouldRemoveNothingWhileAnAttachedProcessIsFrozen() throws Exception
    {
        final Path file = dir.resolve("freeze.map");
        final Path stop = dir.resolve("stop");
        try (ChildJvm frozen = ChildJvm.start(Survivor.class, file.toString(), "16000000", "2", stop.toString(),
            Long.toString(GRACE_MS), "quiet");
            Floodgate janitor = Floodgate.open(FloodgateConfig.builder().file(file).capacity(200_000)
                .limit(Action.PUBLISH, 16_000_000, FloodgateConfig.MAX_WINDOW_MS)
                .limit(Action.AUTH, 16_000_000, FloodgateConfig.MAX_WINDOW_MS).limit(Action.SUBSCRIBE, 1_000, 20)
                .reclaimGraceMs(GRACE_MS).build()))
        {
            frozen.awaitLine("READY", 120);
            // it touched 200 short-lived entries (20 ms windows) before READY: it holds their addresses
            Signals.send("STOP", frozen.pid());
            final long reapedBefore = janitor.stats().reaped();
            // the scenario itself: real time with the process frozen, FROZEN_GRACES grace periods
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(FROZEN_GRACES * GRACE_MS);
            long passes = 0;
            while (System.nanoTime() < deadline)
            {
                janitor.cleanup();
                passes++;
            }
            assertTrue(passes > 5, "the janitor kept running while the process was frozen: " + passes);
            final Stats frozenStats = janitor.stats();
            assertEquals(reapedBefore, frozenStats.reaped(), "nothing removed in " + passes + " passes while frozen");
            assertTrue(frozenStats.tombstoned() > 0, "idle entries were tombstoned, which is safe: " + frozenStats);

            // The thaw race: its clock thread beats again at once, while a thread of it may still be between
            // an entry's generation test and its write. Nothing may be removed until it has run a grace period.
            final long thawed = System.nanoTime();
            Signals.send("CONT", frozen.pid());
            long passesAfterThaw = 0;
            while (System.nanoTime() - thawed < TimeUnit.MILLISECONDS.toNanos(GRACE_MS / 2))
            {
                janitor.cleanup(); // each pass reads its clock when it starts: within half a grace of the thaw
                passesAfterThaw++;
            }
            assertEquals(reapedBefore, janitor.stats().reaped(), "nothing removed in the " + passesAfterThaw +
                " passes right after the thaw, though the heartbeat is fresh again");
            Files.createFile(stop);
            final String result = frozen.awaitLine("RESULT", 60);
            assertEquals(0, frozen.awaitExit(30));
            assertEquals(0, Worker.field(result, "errors"), frozen.transcript());

            // passes until the first reap, within the same three grace periods as ever (running them all out
            // once the janitor has reaped proved nothing more and cost 5 of the test's 18 s)
            final long deadline2 = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * GRACE_MS);
            while (System.nanoTime() < deadline2 && janitor.stats().reaped() == reapedBefore)
            {
                janitor.cleanup();
            }
            final long reapedAfter = janitor.stats().reaped();
            System.out.printf("FREEZE graceMs=%d frozenForMs=%d passesWhileFrozen=%d reapedWhileFrozen=%d " +
                "tombstonedWhileFrozen=%d reapedAfterThaw=%d%n", GRACE_MS, FROZEN_GRACES * GRACE_MS, passes,
                frozenStats.reaped() - reapedBefore, frozenStats.tombstoned(), reapedAfter - reapedBefore);
            assertTrue(reapedAfter > reapedBefore, "once it is gone, the janitor reaps");
        }
    }
}
