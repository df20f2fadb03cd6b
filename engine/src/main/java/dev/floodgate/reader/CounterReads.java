package dev.floodgate.reader;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.store.ClusterCounterRegion;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.GuardRegion;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * {@link FloodgateReader}'s reads of the file's counters: the table-wide ones with the guards' records, and the
 * node's cluster counters. Each word is read atomically (volatile); the figures together are not a snapshot.
 * Stateless.
 */
final class CounterReads
{
    private CounterReads()
    {
    }

    /**
     * @param held   live lease entries the caller counted.
     * @param unused their balances summed.
     * @return those beside the counters every JVM of the node adds to the file.
     */
    static ClusterStats.Node cluster(final FileHeader header, final long held, final long unused)
    {
        final ClusterCounterRegion c = new ClusterCounterRegion(header);
        return new ClusterStats.Node(held, unused, c.totalVolatile(ClusterCounterRegion.ROUND_TRIPS),
            c.totalVolatile(ClusterCounterRegion.TOKENS_LEASED), c.totalVolatile(ClusterCounterRegion.TOKENS_REFUNDED),
            c.totalVolatile(ClusterCounterRegion.UNAVAILABLE), c.totalVolatile(ClusterCounterRegion.REFUSED),
            c.totalVolatile(ClusterCounterRegion.FALLBACKS_REFUSED),
            c.totalVolatile(ClusterCounterRegion.FALLBACKS_LOCAL));
    }

    /** @return the table-wide counters and the table guard's record ({@code guard}: its region, mapped). */
    static TableCounters counters(final ReadOnlyMapping mapping, final ChronicleLayout layout, final FileHeader header,
        final UnsafeBuffer guard)
    {
        final Map<Action, Long> tableFull = new EnumMap<>(Action.class);
        final Map<Action, Long> degraded = new EnumMap<>(Action.class);
        for (final Action action : Action.values())
        {
            tableFull.put(action, header.counterVolatile(FileHeader.tableFullOffset(action)));
            degraded.put(action, header.counterVolatile(FileHeader.degradedOffset(action)));
        }
        return new TableCounters(segmentEntries(mapping, layout),
            header.counterVolatile(FileHeader.JANITOR_RUNS_OFFSET), header.counterVolatile(FileHeader.REAPED_OFFSET),
            header.counterVolatile(FileHeader.TOMBSTONED_OFFSET), header.counterVolatile(FileHeader.REVIVED_OFFSET),
            Collections.unmodifiableMap(tableFull), Collections.unmodifiableMap(degraded),
            heldSegmentGuards(mapping, layout), guard.getLongVolatile(GuardRegion.REPAIRS_OFFSET),
            guard.getLongVolatile(GuardRegion.TIMEOUTS_OFFSET), guard.getLongVolatile(GuardRegion.LAST_DEAD_OFFSET),
            guard.getLongVolatile(GuardRegion.TIER_REPAIRS_OFFSET),
            guard.getLongVolatile(GuardRegion.TIER_DIVERGENCES_OFFSET),
            header.counterVolatile(FileHeader.ENTRY_COUNT_OFFSET),
            header.counterVolatile(FileHeader.ENTRY_REPAIRS_GIVEN_UP_OFFSET));
    }

    /**
     * The segments' entry counts summed, beside the file's count (both in {@link TableCounters}): a process killed
     * between a segment's count and the file's leaves the file's off until a writer's janitor repairs it, and this
     * reader repairs nothing, so it shows both and their difference.
     *
     * @return entries the segments count, each segment's read atomically (not a snapshot across segments).
     */
    private static long segmentEntries(final ReadOnlyMapping mapping, final ChronicleLayout layout)
    {
        long entries = 0;
        for (int segment = 0; segment < layout.segments; segment++)
        {
            final UnsafeBuffer header = mapping.view(layout.segmentHeadersOffset +
                (long)segment * layout.segmentHeaderSize, GuardRegion.SEGMENT_ENTRIES_OFFSET + 8, "a segment header");
            entries += header.getLongVolatile(GuardRegion.SEGMENT_ENTRIES_OFFSET);
        }
        return entries;
    }

    /** @return segment guards held at this moment (by any process): a table operation in progress, or stopped. */
    private static int heldSegmentGuards(final ReadOnlyMapping mapping, final ChronicleLayout layout)
    {
        int held = 0;
        for (int segment = 0; segment < layout.segments; segment++)
        {
            final UnsafeBuffer header = mapping.view(layout.segmentHeadersOffset +
                (long)segment * layout.segmentHeaderSize, GuardRegion.SEGMENT_GUARD_OFFSET + 8, "a segment header");
            held += header.getLongVolatile(GuardRegion.SEGMENT_GUARD_OFFSET) != 0 ? 1 : 0;
        }
        return held;
    }
}
