package dev.floodgate;

import dev.floodgate.store.Entry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.SlotLocks;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.DebuggedChild;
import dev.floodgate.testkit.KeyOutsideHeader;
import dev.floodgate.testkit.SegmentHolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process that dies holding a segment guard leaves its owner word in its slot of the lock file; the next process to
 * claim that slot took the slot's lock, then published its own word. Stopped between the two (SIGSTOP, a debugger, a
 * long pause of a JVM starting), it made the dead holder read as alive (the slot held, and still naming the dead
 * word): every process's cold checks on the dead holder's segment were refused as unreachable for as long as the new
 * process stayed stopped, though it held no guard. Found by review; fails before the fix.
 *
 * <p>Deterministic: the claimer is a child JVM under the debugger, the whole JVM stopped in {@code claimSlot} once it
 * holds the slot's lock, while this JVM checks a new key of the dead holder's segment.
 */
@Timeout(180)
class StoppedClaimerTakeoverTest
{
    @TempDir
    Path dir;

    /** Child: opens the table (claiming a slot) and closes it. */
    public static final class Claimer
    {
        public static void main(final String[] args)
        {
            QuotaTable.open(Path.of(args[0]), 1_000, 2, false, System.nanoTime()).close();
            System.out.println("DONE");
        }
    }

    @Test
    void shouldTakeOverADeadHoldersGuardWhileItsSlotsNextClaimerIsStopped() throws Exception
    {
        final Path file = dir.resolve("claim.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 1_000, FloodgateConfig.MAX_WINDOW_MS).build();
        final KeyOutsideHeader held = KeyOutsideHeader.find(file, Entry.KIND_BUCKET, Action.PUBLISH, "user-");
        final String key = held.key();
        final int segment = held.segment();
        try (Floodgate gate = Floodgate.open(config)) // slot 0
        {
            final SlotLocks locks = SlotLocks.acquire(file, false);
            final int deadSlot = 1; // the holder takes the first free slot
            try (ChildJvm holder = ChildJvm.start(SegmentHolder.class, file.toString(), Integer.toString(segment)))
            {
                holder.awaitLine("HELD", 120);
                assertTrue(locks.isHeld(deadSlot) && locks.tokenVolatile(deadSlot) != 0, "the holder's slot");
                holder.kill(); // dies holding the segment's guard
            }
            final boolean[] checked = {false};
            final long[] result = {-1};
            final String log;
            try (DebuggedChild claimer = DebuggedChild.start(Claimer.class, List.of(file.toString())))
            {
                claimer.runStoppingAtEntry("dev.floodgate.store.LockFile", "words", hit ->
                {
                    if (checked[0] || !hit.thread().frame(1).location().method().name().equals("claimSlot") ||
                        !locks.isHeld(deadSlot))
                    {
                        return;
                    }
                    checked[0] = true;
                    // the claimer holds the dead holder's slot and is stopped; a client of that segment arrives
                    result[0] = gate.checkLimit(key, Action.PUBLISH);
                });
                log = claimer.transcript();
            }
            assertTrue(checked[0], "the claimer was stopped holding slot " + deadSlot + ": " + log);
            assertEquals(0, gate.stats().degraded().get(Action.PUBLISH), "the check waited for a dead holder's " +
                "guard as if it lived, while the next owner of its slot was stopped");
            assertEquals(Floodgate.ADMITTED, result[0]);
            assertTrue(log.contains("DONE"), log);
            locks.release();
        }
    }
}
