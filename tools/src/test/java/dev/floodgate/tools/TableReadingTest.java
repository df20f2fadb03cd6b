package dev.floodgate.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.reader.BlockedCount;
import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableEntry;
import dev.floodgate.tools.table.TableReading;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code stats}, {@code top} and {@code watch} read the table in one walk that copies only the counters ranked among
 * the top ({@link TableReading}); what they show is what they showed when the walk copied every entry and the figures
 * and the ranking were computed over that list: on a table of a thousand blocked counters (240 of them under PUBLISH) with ties on every count,
 * labels equal once cut, labels not ASCII, tombstoned entries, windows beside buckets.
 */
@Timeout(120)
class TableReadingTest
{
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    @Test
    void showsWhatACopyOfEveryEntryShowed() throws Exception
    {
        final Path file = dir.resolve("t.map");
        fill(file);
        try (FloodgateReader reader = FloodgateReader.open(file))
        {
            final List<TableEntry> entries = reader.entries();
            final long unreadable = reader.unreadableEntries();
            for (final Action action : new Action[] {null, Action.AUTH, Action.PUBLISH})
            {
                final List<TableEntry> sorted = entries.stream()
                    .filter(e -> !e.tombstoned() && e.kind() == EntryKind.BLOCKED &&
                        (action == null || e.action() == action))
                    .sorted(Comparator.comparingLong(TableEntry::blocked).reversed().thenComparing(TableEntry::label))
                    .toList();
                assertTrue(sorted.size() > 200, "counters ranked: " + sorted.size());
                for (final long n : new long[] {1, 7, 20, 101, 333, sorted.size(), 100_000, Long.MAX_VALUE})
                {
                    final TableReading report = TableReading.read(reader, action, n);
                    final String what = action + ", n=" + n;
                    assertEquals(counts(sorted.subList(0, (int)Math.min(n, sorted.size()))), report.top(), what);
                    assertEquals(entries.size(), report.entries(), what);
                    final long live = entries.stream().filter(e -> !e.tombstoned()).count();
                    assertEquals(live, report.liveEntries(), what);
                    assertEquals(entries.size() - live, report.tombstonedEntries(), what);
                    assertEquals(100.0 * entries.size() / report.identity().capacity(), report.occupancyPercent(), what);
                    for (final Action one : Action.values())
                    {
                        for (final EntryKind kind : EntryKind.values())
                        {
                            assertEquals(entries.stream().filter(e -> !e.tombstoned() && e.kind() == kind &&
                                e.action() == one).count(), report.count(kind, one), what + ", " + kind + " " + one);
                        }
                    }
                    assertEquals(reader.cluster(entries), report.cluster(), what);
                    assertEquals(unreadable, report.unreadable(), what);
                }
            }
            final List<BlockedCount> top = counts(entries.stream()
                .filter(e -> !e.tombstoned() && e.kind() == EntryKind.BLOCKED && e.action() == Action.AUTH)
                .sorted(Comparator.comparingLong(TableEntry::blocked).reversed().thenComparing(TableEntry::label))
                .limit(50).toList());
            assertTopJson(top, Cli.run("top", "--file", file.toString(), "--action", "auth", "-n", "50", "--json"));
            final Cli.Result stats = Cli.run("stats", "--file", file.toString(), "--json");
            assertEquals(0, stats.code(), stats::toString);
            final JsonNode json = JSON.readTree(stats.out());
            assertEquals(entries.size(), json.get("entries").asLong());
            assertEquals(entries.stream().filter(e -> !e.tombstoned() && e.kind() == EntryKind.BLOCKED &&
                e.action() == Action.AUTH).count(), json.get("actions").get("auth").get("blocked").asLong());
        }
    }

    private static void assertTopJson(final List<BlockedCount> expected, final Cli.Result result) throws Exception
    {
        assertEquals(0, result.code(), result::toString);
        final List<BlockedCount> shown = new ArrayList<>();
        for (final JsonNode row : JSON.readTree(result.out()))
        {
            final String label = row.get("identifier").asText();
            assertEquals(Action.AUTH, Action.valueOf(row.get("action").asText().toUpperCase(java.util.Locale.ROOT)));
            final BlockedCount like = expected.get(shown.size());
            assertEquals(like.labelCut(), row.get("identifierCut").asBoolean(), label);
            shown.add(new BlockedCount(Action.AUTH, label, like.identifierLength(), row.get("blocked").asLong()));
        }
        assertEquals(expected, shown, "top --json, in order");
    }

    private static List<BlockedCount> counts(final List<TableEntry> entries)
    {
        return entries.stream().map(e -> new BlockedCount(e.action(), e.label(), e.identifierLength(), e.blocked()))
            .toList();
    }

    /** A thousand blocked counters of 1 to 3 refusals; windows; resets; cut, non-ASCII and two-action labels. */
    private static void fill(final Path file)
    {
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(10_000)
            .limit(Action.AUTH, 1, 3_600_000).limit(Action.PUBLISH, 1, 3_600_000).limit(Action.SUBSCRIBE, 100, 1_000)
            .build();
        try (Floodgate gate = Floodgate.open(config))
        {
            for (int i = 0; i < 800; i++)
            {
                final String ip = "10.1." + i / 256 + "." + i % 256;
                refuse(gate, ip, Action.AUTH, 1 + i % 3);
                if (i % 4 == 0)
                {
                    refuse(gate, ip, Action.PUBLISH, 1 + i % 3);
                }
                if (i % 5 == 0)
                {
                    gate.checkLimitInCaller(ip, Action.SUBSCRIBE); // a window
                }
                if (i % 10 == 7)
                {
                    gate.reset(ip, Action.AUTH); // its bucket and counter tombstoned
                }
            }
            for (final String stem : new String[] {"y".repeat(47) + "-", "\ud83d\ude00-", "\uff21-", "\u00fc-"})
            {
                for (int i = 0; i < 30; i++)
                {
                    refuse(gate, stem + i, i % 3 == 0 ? Action.PUBLISH : Action.AUTH, 1 + i % 3);
                }
            }
        }
    }

    private static void refuse(final Floodgate gate, final String identifier, final Action action, final int times)
    {
        assertEquals(Floodgate.ADMITTED, gate.checkLimit(identifier, action), identifier);
        for (int i = 0; i < times; i++)
        {
            assertNotEquals(Floodgate.ADMITTED, gate.checkLimit(identifier, action), identifier);
        }
    }
}
