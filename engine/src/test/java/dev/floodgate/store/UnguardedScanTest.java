package dev.floodgate.store;

import dev.floodgate.Action;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The janitor's scan reads Chronicle's layout itself, with no guard ({@link SegmentWalk}); the in-place scan goes
 * through Chronicle's own iteration under the guard. On a table no one writes meanwhile, holding every kind of entry
 * and a segment with a chained tier, both must visit the same entries with the same bytes, and the unguarded one
 * must keep the counts as exact as the guarded one does.
 */
@Timeout(60)
class UnguardedScanTest
{
    private static final int SHARDS = 4;

    @TempDir
    Path dir;

    @Test
    void shouldVisitEveryEntryOfEveryTierAsChroniclesIterationDoes() throws Exception
    {
        final long now = System.nanoTime();
        try (QuotaTable table = QuotaTable.open(dir.resolve("t.map"), 1_000, SHARDS, false, now))
        {
            for (int i = 0; i < 100; i++)
            {
                table.lookup().resolve(Entry.KIND_BUCKET, Action.AUTH, "b-" + i, 10, 60_000, 1, i, now, null);
                table.lookup().resolve(Entry.KIND_WINDOW, Action.PUBLISH, "w-" + i, 10, 60_000, 1, 0, now, null);
            }
            for (int i = 0; i < 50; i++)
            {
                for (final byte kind : new byte[] {Entry.KIND_BLOCKED, Entry.KIND_LEASE})
                {
                    final String id = "k" + kind + "-" + i;
                    table.map().put(table.hasher().key(id, Action.DASHBOARD_API, kind), EntryLayout.newValue(kind,
                        Action.DASHBOARD_API, 10, 60_000, now, table.header().nextGeneration(), 0, 0, id, SHARDS));
                }
            }
            final int chained = TierCounts.segmentWithAChainedTier(table);

            final Map<String, String> inPlace = new HashMap<>();
            assertEquals(0, table.scans().forEachEntryInPlace((key, value) -> inPlace.put(hex(key, 16),
                hex(value.value, value.length()))));
            final Map<String, String> copies = new HashMap<>();
            assertEquals(0, table.scans().forEachEntryUnguarded((key, value) -> assertEquals(null,
                copies.put(hex(key, 16), hex(value.value, value.length())), "an entry visited twice")));

            long entries = -1; // the file's record
            for (final long count : table.scans().segmentCounts())
            {
                entries += count;
            }
            // the insert that made segment `chained` chain a tier went into that tier
            assertTrue(table.scans().segmentCounts()[chained] > 0, "the premise: a chained segment");
            assertEquals(entries, inPlace.size(), "the premise: Chronicle's iteration visits every entry");
            assertEquals(inPlace, copies, "the unguarded scan visits what Chronicle's iteration visits, byte for byte");
            assertEquals(entries, table.header().counterVolatile(FileHeader.ENTRY_COUNT_OFFSET),
                "the file's count, recounted by the censuses");
        }
    }

    @Test
    void shouldVisitADivergedChainedTierAsChroniclesIterationDidBeforeItThrew() throws Exception
    {
        final long now = System.nanoTime();
        try (QuotaTable table = QuotaTable.open(dir.resolve("d.map"), 1_000, SHARDS, false, now))
        {
            final int chained = TierCounts.segmentWithAChainedTier(table);
            // a process killed inside an insert into the segment's first tier: its count one ahead, beyond an online
            // repair in a chained segment; Chronicle's iteration (last tier first) visited every entry of the diverged
            // tier before it threw, so the janitor's in-place scan judged them
            TierCounts.countOneAhead(table, chained);
            final Map<String, String> inPlace = new HashMap<>();
            table.scans().forEachEntryInPlace((key, value) -> inPlace.put(hex(key, 16), hex(value.value,
                value.length())));
            final Map<String, String> copies = new HashMap<>();
            table.scans().forEachEntryUnguarded((key, value) -> copies.put(hex(key, 16), hex(value.value,
                value.length())));

            long entries = -1; // the file's record
            for (final long count : table.scans().segmentCounts())
            {
                entries += count;
            }
            assertTrue(inPlace.size() > entries - table.scans().segmentCounts()[chained],
                "the premise: Chronicle's iteration visits the diverged segment's tiers up to the diverged one");
            assertEquals(inPlace.keySet(), copies.keySet(), "the unguarded scan judges what the janitor judged " +
                "before: the diverged tier's entries included (reaped by no one until the file is recovered offline)");
        }
    }

    private static String hex(final UnsafeBuffer buffer, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return HexFormat.of().formatHex(bytes);
    }
}
