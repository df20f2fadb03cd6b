package dev.floodgate.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.TierCounts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code floodgate stats} tells an operator of a segment whose entry count diverged in a chained tier (a
 * process killed inside an insert there): the count in the text, with what it costs (scans skip the rest of the
 * segment until the file is recovered offline), in {@code --json} and in {@code --prometheus}. A table at rest
 * says 0 ({@code ReadCommandsTest}).
 */
@Timeout(60)
class TierDivergenceStatsTest
{
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void statsShowsAnEntryCountDivergedInAChainedTierInEveryFormat() throws Exception
    {
        final Path file = dir.resolve("t.map");
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).build()))
        {
            gate.checkLimit("10.0.0.1", Action.AUTH);
        }
        try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            TierCounts.countOneAhead(table, TierCounts.segmentWithAChainedTier(table));
            table.scans().forEachEntryInPlace((key, entry) -> { }); // a janitor's pass meets it
        }
        final Cli.Result text = Cli.run("stats", "--file", file.toString());
        assertEquals(0, text.code(), text::toString);
        assertTrue(text.out().contains("entry counts 0 repaired, diverged in a chained tier seen by 1 scan(s) (scans skip the rest of " +
            "such a segment until the file is recovered offline)\n"), text.out());
        final JsonNode json = JSON.readTree(Cli.run("stats", "--file", file.toString(), "--json").out());
        assertEquals(1, json.get("tierDivergences").asLong());
        assertEquals(0, json.get("tierRepairs").asLong());
        final String prometheus = Cli.run("stats", "--file", file.toString(), "--prometheus").out();
        assertTrue(prometheus.contains("floodgate_tier_divergences_total 1.0\n"), prometheus);
        assertTrue(prometheus.contains("floodgate_tier_repairs_total 0.0\n"), prometheus);
    }
}
