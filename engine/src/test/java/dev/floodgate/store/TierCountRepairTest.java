package dev.floodgate.store;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.reader.FloodgateReader;
import net.openhft.chronicle.hash.impl.BigSegmentHeader;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process killed inside an insert leaves its segment's entry count one ahead of the entries (Chronicle bumps the
 * count before it writes the slot). The next scan repairs it and counts the repair in the file; that count was
 * written but read by nothing, so an operator never learnt of it, nor of a divergence it could not repair (which
 * leaves the rest of a segment unscanned until the file is recovered offline). Both are node counters: in
 * {@code Floodgate.stats()} and the reader's, as the guard repairs are. The killed insert is reproduced by setting
 * the count it leaves, as a kill cannot be timed between Chronicle's two writes.
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
                final VanillaChronicleHash<?, ?, ?, ?> map = (VanillaChronicleHash<?, ?, ?, ?>)table.map();
                final int segment = segmentWithOneTier(map);
                assertTrue(table.guard().acquireSegment(segment, QuotaTable.TOOL_TIMEOUT_NANOS));
                try
                {
                    final long address = map.segmentHeaderAddress(segment);
                    BigSegmentHeader.INSTANCE.entries(address, BigSegmentHeader.INSTANCE.entries(address) + 1);
                }
                finally
                {
                    table.guard().releaseSegment(segment);
                }
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

    /** @return a segment holding entries in a single tier: where the repair reaches the count. */
    private static int segmentWithOneTier(final VanillaChronicleHash<?, ?, ?, ?> map)
    {
        for (int segment = 0; segment < map.segments(); segment++)
        {
            final long address = map.segmentHeaderAddress(segment);
            if (BigSegmentHeader.INSTANCE.entries(address) > 0 && BigSegmentHeader.INSTANCE.nextTierIndex(address) == 0)
            {
                return segment;
            }
        }
        throw new AssertionError("no segment with entries in a single tier");
    }
}
