package dev.floodgate.store;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.Stats;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A process killed inside an insert leaves its segment's entry count one ahead of the entries
 * ({@link TierCounts#countOneAhead}). The next scan repairs it and counts the repair in the file; that count was
 * written but read by nothing, so an operator never learnt of it, nor of a divergence it could not repair (which
 * leaves the rest of a segment unscanned until the file is recovered offline). Both are node counters: in
 * {@code Floodgate.stats()} and the reader's (what {@code floodgate stats} prints), as the guard repairs are.
 */
@Timeout(60)
class TierCountRepairTest
{
    @TempDir
    Path dir;

    @Test
    void shouldCountARepairedEntryCountWhereTheOtherNodeCountersAre()
    {
        final Path file = dir.resolve("t.map");
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).build()))
        {
            for (int i = 0; i < 64; i++)
            {
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0." + i, Action.AUTH));
            }
            assertEquals(0, gate.stats().tierRepairs());
            try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
            {
                TierCounts.countOneAhead(table, TierCounts.segmentWithOneTier(table));
                table.scans().forEachEntryInPlace((key, entry) -> { }); // what the janitor's pass does
            }
            assertEquals(1, gate.stats().tierRepairs(), "the repair is counted where an operator reads it");
            assertEquals(0, gate.stats().tierDivergences());
            try (FloodgateReader reader = FloodgateReader.open(file))
            {
                assertEquals(1, reader.counters().tierRepairs());
                assertEquals(0, reader.counters().tierDivergences());
            }
        }
    }

    @Test
    void shouldCountAnEntryCountDivergedInAChainedTierWhereTheOtherNodeCountersAre()
    {
        final Path file = dir.resolve("d.map");
        // no janitor pass during the test: each scan that meets the divergence counts it again
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000)
            .cleanupIntervalMs(3_600_000).build()))
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.1", Action.AUTH));
            try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
            {
                TierCounts.countOneAhead(table, TierCounts.segmentWithAChainedTier(table));
                table.scans().forEachEntryInPlace((key, entry) -> { }); // what the janitor's pass does
            }
            final Stats stats = gate.stats();
            assertEquals(1, stats.tierDivergences(), "the divergence is counted where an operator reads it");
            assertEquals(0, stats.tierRepairs(), "a count in a chained tier is beyond an online repair");
            try (FloodgateReader reader = FloodgateReader.open(file))
            {
                final TableCounters counters = reader.counters();
                assertEquals(1, counters.tierDivergences(), "floodgate stats' figure");
                assertEquals(0, counters.tierRepairs());
            }
        }
    }
}
