package dev.floodgate;

import dev.floodgate.store.Entry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.ChildJvm;
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
        String user = null;
        int segment = -1;
        try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            for (int i = 0; user == null; i++)
            {
                final String candidate = "user-" + i;
                final int blocked = table.lookup().segmentOf(Entry.KIND_BLOCKED, Action.PUBLISH, candidate);
                if (blocked != table.lookup().headerSegment() &&
                    blocked != table.lookup().segmentOf(Entry.KIND_BUCKET, Action.PUBLISH, candidate) &&
                    blocked != table.lookup().segmentOf(Entry.KIND_WINDOW, Action.PUBLISH, candidate))
                {
                    user = candidate; // its bucket and window can be reset while its blocked counter is held
                    segment = blocked;
                }
            }
        }
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
