package dev.floodgate;

import dev.floodgate.store.Entry;
import dev.floodgate.testkit.DebuggedChild;
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
 * Two processes claiming one free slot of the lock file at once. The claimer published its owner word by
 * compare-and-set against the word it read, then took the slot's lock; a second claimer that read the first one's
 * word and found the slot unlocked in between, then was stopped (or merely slow) until the first held the lock,
 * replaced the word by its own, failed to lock and moved on: the first process lived and held the slot, but the slot
 * no longer named it, so every guard it held read as a dead holder's and another process took it over, two
 * processes in one segment at once. Found by review of the fix that publishes the word before the lock; fails
 * before the fix.
 *
 * <p>Deterministic: both claimers are child JVMs under the debugger. The holder is stopped after its compare-and-set,
 * at its slot lock; the other claimer runs until it is about to compare-and-set a slot it found free; then the holder
 * runs on and takes a segment's guard, then the other finishes, and this JVM checks a key of that segment.
 */
@Timeout(180)
class RacingClaimersTest
{
    @TempDir
    Path dir;

    @Test
    void shouldNotTakeOverALiveHoldersGuardAfterARacingClaimerPassedItsSlot() throws Exception
    {
        final Path file = dir.resolve("race.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 1_000, FloodgateConfig.MAX_WINDOW_MS).build();
        final KeyOutsideHeader held = KeyOutsideHeader.find(file, Entry.KIND_BUCKET, Action.PUBLISH, "user-");
        final String key = held.key();
        final int segment = held.segment();
        try (Floodgate gate = Floodgate.open(config); // slot 0
             DebuggedChild holder = DebuggedChild.start(SegmentHolder.class,
                 List.of(file.toString(), Integer.toString(segment)));
             DebuggedChild racer = DebuggedChild.start(StoppedClaimerTakeoverTest.Claimer.class,
                 List.of(file.toString())))
        {
            // the holder has published its word in the first free slot and is about to take the slot's lock
            holder.runUntilEntry("dev.floodgate.store.LockFile", "tryLock",
                hit -> caller(hit, 1).equals("tryClaim") && caller(hit, 2).equals("claimSlot"));
            // the racer has read that slot's word, found the slot unlocked, and is about to compare-and-set it
            racer.runUntilEntry("dev.floodgate.store.LockFile", "words", hit -> caller(hit, 1).equals("claimSlot"));
            holder.detach();
            holder.awaitLine("HELD", 60);
            racer.detach();
            assertTrue(racer.process().waitFor(60, TimeUnit.SECONDS), "the racer did not end");
            racer.awaitOutput();
            assertTrue(racer.transcript().contains("DONE"), racer.transcript());

            gate.checkLimit(key, Action.PUBLISH);
            assertEquals(1, gate.stats().degraded().get(Action.PUBLISH), "a check took over the segment guard of " +
                "a live process (it still holds it): the racing claimer's word was left in the holder's slot");
        }
    }
}
