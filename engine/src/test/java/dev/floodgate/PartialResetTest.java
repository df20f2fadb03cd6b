package dev.floodgate;

import dev.floodgate.store.Entry;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.KeyOutsideHeader;
import dev.floodgate.testkit.SegmentHolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reset forgets the bucket, the window and the blocked count one after the other, each under its own segment's
 * lock; when a live process holds a later kind's segment, the reset throws with the earlier kinds already reset.
 * Before, the exception named only the busy segment, so an operator could not tell that part of the reset had
 * happened (or what a retry still had to do).
 */
@Timeout(180)
class PartialResetTest
{
    @TempDir
    Path dir;

    @Test
    void shouldSayWhatAResetCutShortHadReset() throws Exception
    {
        final Path file = dir.resolve("reset.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 1, FloodgateConfig.MAX_WINDOW_MS).build();
        Floodgate.open(config).close();
        // its bucket and window can be reset while its blocked counter is held
        final KeyOutsideHeader held = KeyOutsideHeader.find(file, Entry.KIND_BLOCKED, Action.PUBLISH, "user-",
            Entry.KIND_BUCKET, Entry.KIND_WINDOW);
        final String user = held.key();
        final int segment = held.segment();
        try (Floodgate gate = Floodgate.open(config))
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimit(user, Action.PUBLISH));
            assertTrue(gate.checkLimit(user, Action.PUBLISH) != Floodgate.ADMITTED);
            try (ChildJvm holder = ChildJvm.start(SegmentHolder.class, file.toString(), Integer.toString(segment)))
            {
                holder.awaitLine("HELD", 120);
                final String id = user;
                final TableBusyException busy = assertThrows(TableBusyException.class,
                    () -> gate.resetEntries(id, Action.PUBLISH));
                assertTrue(busy.getMessage().contains("reset before it: [bucket]") &&
                    busy.getMessage().contains("not reset: [blocked]"), busy.getMessage());
                assertEquals(1, gate.probe(user, Action.PUBLISH).remaining(), "the bucket was reset");
            }
            assertEquals(List.of("blocked"), gate.resetEntries(user, Action.PUBLISH), "a retry does the rest");
            assertEquals(0, gate.blockedCount(user, Action.PUBLISH));
        }
    }
}
