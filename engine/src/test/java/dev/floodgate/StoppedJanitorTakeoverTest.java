package dev.floodgate;

import dev.floodgate.store.Entry;
import dev.floodgate.store.SlotLocks;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.DebuggedChild;
import dev.floodgate.testkit.IdleJanitor;
import dev.floodgate.testkit.KeyOutsideHeader;
import dev.floodgate.testkit.SegmentHolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.floodgate.testkit.DebuggedChild.caller;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A janitor freeing a dead process's registry entry took the dead process's slot lock for the moment it cleared the
 * entry. Stopped in that moment (SIGSTOP, a debugger, a long pause), it made the dead process's owner word read as
 * alive (the slot held, still naming it): a guard the dead process held was never taken over, and every cold check of
 * that segment was refused for as long as the janitor stayed stopped. Found by review; fails before the fix.
 *
 * <p>Deterministic: the janitor is a child JVM under the debugger, stopped in {@code freeDead} as it clears the dead
 * process's entry, while this JVM checks a key of the dead process's segment.
 */
@Timeout(180)
class StoppedJanitorTakeoverTest
{
    @TempDir
    Path dir;

    @Test
    void shouldTakeOverADeadHoldersGuardWhileAJanitorFreeingItsEntryIsStopped() throws Exception
    {
        final Path file = dir.resolve("janitor.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 1_000, FloodgateConfig.MAX_WINDOW_MS).build();
        final KeyOutsideHeader held = KeyOutsideHeader.find(file, Entry.KIND_BUCKET, Action.PUBLISH, "user-");
        final String key = held.key();
        final int segment = held.segment();
        final SlotLocks locks = SlotLocks.acquire(file, false);
        try (Floodgate gate = Floodgate.open(config); // slot 0
             ChildJvm holder = ChildJvm.start(SegmentHolder.class, file.toString(), Integer.toString(segment),
                 "registered"); // slot 1
             DebuggedChild janitor = IdleJanitor.startDebugged(file, 1_000, 2))
        {
            holder.awaitLine("HELD", 120);
            // the janitor attaches (slot 2, while the holder lives) and stops at its pass's freeDead
            janitor.runUntilEntry("dev.floodgate.store.ProcessRegistry", "freeDead", hit -> true);
            holder.kill(); // dies holding the segment's guard, its registry entry left
            final int deadSlot = 1;
            assertTrue(!locks.isHeld(deadSlot) && locks.tokenVolatile(deadSlot) != 0, "the dead holder's slot");
            // the janitor clears the dead holder's entry (a store before the fix, a compare-and-set after)
            janitor.runUntilEntry("org.agrona.concurrent.UnsafeBuffer", List.of("putLongRelease",
                "compareAndSetLong"), hit -> caller(hit, 1).equals("freeDead"));
            final long result = gate.checkLimit(key, Action.PUBLISH);
            assertEquals(0, gate.stats().degraded().get(Action.PUBLISH), "the check waited for a dead holder's " +
                "guard as if it lived, while a janitor freeing its entry was stopped");
            assertEquals(Floodgate.ADMITTED, result);
            janitor.detach();
            assertTrue(janitor.process().waitFor(60, TimeUnit.SECONDS), "the janitor did not end");
            janitor.awaitOutput();
            assertTrue(janitor.transcript().contains("DONE"), janitor.transcript());
        }
        finally
        {
            locks.release();
        }
    }
}
