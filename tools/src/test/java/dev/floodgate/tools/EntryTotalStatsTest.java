package dev.floodgate.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.store.EntryTotals;
import dev.floodgate.store.QuotaTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code floodgate stats} tells an operator of a file whose own entry count is off from its segments' (a process
 * killed between an insert's two counts, here set directly; {@code KilledBetweenCountsTest} makes it by the kill):
 * both figures, their difference and what it means, in the text, in {@code --json} and in {@code --prometheus}, and a
 * repair of it given up, counted apart from the guard's waits given up. Until then nothing showed the file's count.
 */
@Timeout(60)
class EntryTotalStatsTest
{
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void statsShowsTheFilesEntryCountBesideTheSegmentsAndTheirDifference() throws Exception
    {
        final Path file = dir.resolve("t.map");
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).build()))
        {
            for (int i = 0; i < 5; i++)
            {
                gate.checkLimit("10.0.0." + i, Action.AUTH);
            }
        }
        final String rest = Cli.run("stats", "--file", file.toString()).out();
        assertTrue(rest.contains("entry total  5 in the segments, 5 counted by the file (what an insert tests " +
            "against the capacity), 0 repairs given up\n"), rest);

        final long timeouts;
        try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            EntryTotals.moveFileCount(table, -1); // an insert killed between its two counts
            timeouts = table.guard().timeouts();
            assertFalse(EntryTotals.repairWithTheLastSegmentHeld(table), "a live process held a segment throughout");
        }
        final Cli.Result text = Cli.run("stats", "--file", file.toString());
        assertEquals(0, text.code(), text::toString);
        assertTrue(text.out().contains("entry total  5 in the segments, 4 counted by the file (what an insert tests " +
            "against the capacity), 1 repairs given up; differ by +1: a process died between an insert's or a " +
            "removal's two counts (a janitor repairs it within two passes), or one was between them as this was " +
            "read\n"), text.out());
        assertTrue(text.out().contains(", " + timeouts + " waits given up\n"), "the guard's own: " + text.out());

        final JsonNode json = JSON.readTree(Cli.run("stats", "--file", file.toString(), "--json").out());
        assertEquals(5, json.get("entryTotal").get("inSegments").asLong());
        assertEquals(4, json.get("entryTotal").get("countedByFile").asLong());
        assertEquals(1, json.get("entryTotal").get("difference").asLong());
        assertEquals(1, json.get("entryTotal").get("repairsGivenUp").asLong());
        assertEquals(timeouts, json.get("guard").get("timeouts").asLong());
        assertEquals(5, json.get("entries").asLong(), "the walk's count, as before");

        final String prometheus = Cli.run("stats", "--file", file.toString(), "--prometheus").out();
        assertTrue(prometheus.contains("floodgate_table_entries_in_segments 5.0\n"), prometheus);
        assertTrue(prometheus.contains("floodgate_table_entries_counted_by_file 4.0\n"), prometheus);
        assertTrue(prometheus.contains("floodgate_entry_total_repairs_given_up_total 1.0\n"), prometheus);
    }
}
