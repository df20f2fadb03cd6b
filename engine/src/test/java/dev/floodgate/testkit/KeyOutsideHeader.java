package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.store.QuotaTable;

import java.nio.file.Path;

/**
 * A key whose entry lies outside the table's header segment, and that entry's segment: a {@link SegmentHolder} can
 * hold that segment's guard while JVMs still open the table (an open goes through the header segment), and a check of
 * the key meets the held guard.
 *
 * @param key     the first {@code prefix + N} (N = 0, 1, ...) that qualifies.
 * @param segment its entry's segment.
 */
public record KeyOutsideHeader(String key, int segment)
{
    /**
     * Opens the table at {@code file} (creating it, 1,000 entries in two shards, as {@link SegmentHolder} opens it)
     * and finds the key.
     *
     * @param kind      the entry's kind ({@code Entry.KIND_BUCKET}, {@code KIND_WINDOW}, ...).
     * @param action    the entry's action.
     * @param prefix    what the key starts with.
     * @param apartFrom kinds whose entries of the same key and action must lie in other segments (reachable while
     *                  this one is held).
     */
    public static KeyOutsideHeader find(final Path file, final byte kind, final Action action, final String prefix,
        final byte... apartFrom)
    {
        try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            for (int i = 0; ; i++)
            {
                final String key = prefix + i;
                final int segment = table.lookup().segmentOf(kind, action, key);
                boolean apart = segment != table.lookup().headerSegment();
                for (final byte other : apartFrom)
                {
                    apart &= segment != table.lookup().segmentOf(other, action, key);
                }
                if (apart)
                {
                    return new KeyOutsideHeader(key, segment);
                }
            }
        }
    }
}
