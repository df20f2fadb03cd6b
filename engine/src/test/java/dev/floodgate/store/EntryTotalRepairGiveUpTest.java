package dev.floodgate.store;

import dev.floodgate.Action;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A repair of the file's entry count ({@link EntryTotalRepair}) that cannot take every segment guard within its
 * budget lets go and is tried again at the next pass. It was counted among the guard's waits given up, which
 * {@code floodgate stats} shows beside the checks that could not reach their entry, and nowhere as what it was; it is
 * counted apart now, and the guard's count is left to operations that waited for a segment. Failed before with the
 * guard's timeouts one higher.
 */
@Timeout(60)
class EntryTotalRepairGiveUpTest
{
    private static final long CAPACITY = 1_000;

    @TempDir
    Path dir;

    @Test
    void aRepairGivenUpIsCountedApartFromTheGuardsWaitsGivenUp() throws Exception
    {
        final Path file = dir.resolve("t.map");
        try (QuotaTable table = QuotaTable.open(file, CAPACITY, 2, false, System.nanoTime()))
        {
            for (int i = 0; i < 10; i++)
            {
                table.lookup().resolve(Entry.KIND_BUCKET, Action.AUTH, "10.0.0." + i, 10, 60_000, 1, 0,
                    System.nanoTime(), null);
            }
            EntryTotals.moveFileCount(table, -1); // an insert killed between its two counts
            final long timeouts = table.guard().timeouts();

            assertFalse(EntryTotals.repairWithTheLastSegmentHeld(table), "a repair with a segment held throughout");

            assertEquals(timeouts, table.guard().timeouts(), "a repair given up is no guard wait given up");
            TableCounters counters = counters(file);
            assertEquals(1, counters.entryRepairsGivenUp(), "the repair given up, counted");
            assertEquals(timeouts, counters.guardTimeouts());
            assertEquals(10, counters.entryCount(), "entries in the segments");
            assertEquals(9, counters.fileEntryCount(), "entries counted by the file, not repaired");
            assertEquals(1, counters.entryCountDifference());

            assertTrue(table.scans().totalRepair().repairIfDrifted(), "the next pass's end, nothing held");
            counters = counters(file);
            assertEquals(10, counters.fileEntryCount(), "repaired at the next pass");
            assertEquals(0, counters.entryCountDifference());
            assertEquals(1, counters.entryRepairsGivenUp(), "a repair done counts nothing");
            assertEquals(timeouts, counters.guardTimeouts());
        }
    }

    private static TableCounters counters(final Path file)
    {
        try (FloodgateReader reader = FloodgateReader.open(file))
        {
            return reader.counters();
        }
    }
}
