package dev.floodgate.store;

import dev.floodgate.Action;
import net.openhft.chronicle.hash.impl.BigSegmentHeader;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;

/**
 * What a process killed inside an insert leaves in a segment: an entry count one ahead of its entries (Chronicle
 * bumps the count before it writes the slot), set here directly, as a kill cannot be timed between those two
 * writes. In a single-tier segment a scan repairs it; in a segment with a chained tier it is beyond an online
 * repair. Public for the tools' tests of what {@code floodgate stats} says of both.
 */
public final class TierCounts
{
    private TierCounts()
    {
    }

    /** @return a segment holding entries in a single tier: where the repair reaches the count. */
    public static int segmentWithOneTier(final QuotaTable table)
    {
        final VanillaChronicleHash<?, ?, ?, ?> map = map(table);
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

    /**
     * Inserts windows straight into the map, past the capacity the engine enforces, until a segment chains a tier
     * (at about 1.1 times a capacity of 1,000).
     *
     * @return that segment.
     */
    public static int segmentWithAChainedTier(final QuotaTable table)
    {
        final VanillaChronicleHash<?, ?, ?, ?> map = map(table);
        final long limit = 2 * Math.max(table.capacity(), 1_024); // past Chronicle's 1.5 bloat: an insert fails first
        for (int i = 0; i < limit; i++)
        {
            final String id = "chained-" + i;
            table.map().put(table.hasher().key(id, Action.PUBLISH, Entry.KIND_WINDOW),
                EntryLayout.newValue(Entry.KIND_WINDOW, Action.PUBLISH, 10, 60_000, System.nanoTime(),
                    table.header().nextGeneration(), 0, 0, id, table.shards()));
            for (int segment = 0; segment < map.segments(); segment++)
            {
                if (BigSegmentHeader.INSTANCE.nextTierIndex(map.segmentHeaderAddress(segment)) != 0)
                {
                    return segment;
                }
            }
        }
        throw new AssertionError("no tier chained after " + limit + " inserts");
    }

    /** Sets {@code segment}'s entry count (its first tier's) one ahead of its entries, under the segment's guard. */
    public static void countOneAhead(final QuotaTable table, final int segment)
    {
        if (!table.guard().acquireSegment(segment, QuotaTable.TOOL_TIMEOUT_NANOS))
        {
            throw new AssertionError("segment " + segment + "'s guard is held");
        }
        try
        {
            final long address = map(table).segmentHeaderAddress(segment);
            BigSegmentHeader.INSTANCE.entries(address, BigSegmentHeader.INSTANCE.entries(address) + 1);
        }
        finally
        {
            table.guard().releaseSegment(segment);
        }
    }

    private static VanillaChronicleHash<?, ?, ?, ?> map(final QuotaTable table)
    {
        return (VanillaChronicleHash<?, ?, ?, ?>)table.map();
    }
}
