package dev.floodgate.reader;

import dev.floodgate.Action;
import dev.floodgate.BlockedEntry;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.ManualTicker;
import dev.floodgate.janitor.Janitor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The walk that counts and ranks without a copy per entry ({@link FloodgateReader#countEntriesByAction} with a
 * {@link BlockedRanking}) gives what the straightforward way gave, on a table of 2,210 blocked counters (and 700 tombstoned) with
 * ties on every count: a copy of every entry ({@link FloodgateReader#entries}), filtered and stably sorted by refusals
 * descending and label, then cut to {@code n} (what {@code Floodgate.topBlocked} and {@code floodgate top} did). Ties
 * go past the count: labels that are equal (identifiers cut to the same 48 bytes; one identifier under two actions),
 * and labels whose UTF-16 order is not their bytes' (an astral char against U+FF21), so the walk's order and the
 * text's order both decide some places.
 */
@Timeout(300)
class BlockedRankingTest
{
    private static final long MS = 1_000_000L;
    private static final Comparator<TableEntry> SORT =
        Comparator.comparingLong(TableEntry::blocked).reversed().thenComparing(TableEntry::label);

    @TempDir
    Path dir;

    private final ManualTicker ticker = new ManualTicker(3_600_000 * MS);
    private Path file;
    private FloodgateConfig config;

    @BeforeEach
    void setUp()
    {
        file = dir.resolve("ranked.map");
        config = FloodgateConfig.builder().file(file).capacity(20_000).ticker(ticker).cleanupIntervalMs(3_600_000)
            .limit(Action.AUTH, 1, 60_000).limit(Action.PUBLISH, 1, 60_000).build();
    }

    @Test
    void ranksAndCountsAsACopyOfEveryEntrySortedDoes()
    {
        try (Floodgate gate = Floodgate.open(config))
        {
            fill(gate);
            try (FloodgateReader reader = FloodgateReader.open(file))
            {
                final List<TableEntry> entries = reader.entries();
                assertCountsByAction(reader, entries);

                for (final Action action : new Action[] {null, Action.AUTH, Action.PUBLISH})
                {
                    final Predicate<TableEntry> live = e -> e.kind() == EntryKind.BLOCKED && !e.tombstoned() &&
                        (action == null || e.action() == action);
                    final List<TableEntry> all = entries.stream().filter(live).sorted(SORT).toList();
                    assertTrue(all.size() > 500, "hundreds ranked at least: " + all.size());
                    for (final int n : cuts(all))
                    {
                        final BlockedRanking ranking = BlockedRanking.live(action, n);
                        reader.countEntriesByAction(ranking);
                        assertEquals(counts(all.subList(0, Math.min(n, all.size()))), ranking.top(),
                            "live, " + action + ", n=" + n);
                    }
                }

                for (final Action action : new Action[] {Action.AUTH, Action.PUBLISH})
                {
                    final Predicate<TableEntry> listed = e -> e.kind() == EntryKind.BLOCKED && e.action() == action &&
                        (!e.tombstoned() || e.blocked() != 0);
                    final List<TableEntry> all = entries.stream().filter(listed).sorted(SORT).toList();
                    assertTrue(all.stream().anyMatch(TableEntry::tombstoned), "tombstoned counts are listed too");
                    for (final int n : cuts(all))
                    {
                        final BlockedRanking ranking = BlockedRanking.withRevivable(action, n);
                        reader.countEntriesByAction(ranking);
                        final List<BlockedCount> expected = counts(all.subList(0, Math.min(n, all.size())));
                        assertEquals(expected, ranking.top(), "with the revivable, " + action + ", n=" + n);
                        assertEquals(expected.stream().map(c -> new BlockedEntry(c.label(), c.blocked())).toList(),
                            gate.topBlocked(action, n), "Floodgate.topBlocked, " + action + ", n=" + n);
                    }
                }
            }
        }
    }

    /**
     * Fills the table: counters the janitor tombstoned with their counts, counters a reset zeroed, and live counters
     * of 1 to 4 refusals under ASCII, cut, non-ASCII and lone-surrogate labels, some under both actions.
     */
    private void fill(final Floodgate gate)
    {
        for (int i = 0; i < 200; i++)
        {
            refuse(gate, "old-" + i, i % 2 == 0 ? Action.AUTH : Action.PUBLISH, 1 + i % 4);
        }
        ticker.advanceNanos(Janitor.BLOCKED_IDLE_NANOS + 1_000 * MS); // a day without a refusal
        gate.cleanup(); // tombstones them, their counts kept for a revival
        for (int i = 0; i < 1_500; i++)
        {
            final String ip = "10.0." + i / 256 + "." + i % 256;
            refuse(gate, ip, Action.AUTH, 1 + i % 4);
            if (i % 3 == 0)
            {
                refuse(gate, ip, Action.PUBLISH, 1 + i % 4); // one label under two actions
            }
            if (i % 10 == 5)
            {
                gate.reset(ip, Action.AUTH); // its counter tombstoned with no refusal: listed by neither rule
            }
        }
        final String[] stems = {"x".repeat(47) + "-", "\u00e9".repeat(30), "bj\u00f8rn-", "\u5317\u4eac-",
            "\ud83d\ude00-", "\uff21-", "a\ud800b-", "A-", "~-"};
        for (final String stem : stems)
        {
            for (int i = 0; i < 40; i++)
            {
                refuse(gate, stem + i, i % 2 == 0 ? Action.AUTH : Action.PUBLISH, 1 + i % 3);
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

    /** @return every n up to 40, every place where the counts or the labels tie across the cut, and past the end. */
    private static List<Integer> cuts(final List<TableEntry> sorted)
    {
        final TreeSet<Integer> cuts = new TreeSet<>();
        for (int n = 0; n <= 40; n++)
        {
            cuts.add(n);
        }
        for (int n = 1; n < sorted.size(); n++)
        {
            final TableEntry before = sorted.get(n - 1);
            final TableEntry after = sorted.get(n);
            final boolean labelsTie = before.label().equals(after.label());
            final boolean textOrderIsNotBytes = !before.label().chars().allMatch(c -> c < 0x80) ||
                !after.label().chars().allMatch(c -> c < 0x80);
            if (before.blocked() == after.blocked() && (labelsTie || textOrderIsNotBytes || n % 97 == 0))
            {
                cuts.add(n);
            }
        }
        cuts.add(sorted.size());
        cuts.add(sorted.size() + 1);
        cuts.add(Integer.MAX_VALUE);
        return List.copyOf(cuts);
    }

    private static List<BlockedCount> counts(final List<TableEntry> entries)
    {
        return entries.stream().map(e -> new BlockedCount(e.action(), e.label(), e.identifierLength(), e.blocked()))
            .toList();
    }

    private static void assertCountsByAction(final FloodgateReader reader, final List<TableEntry> entries)
    {
        final long unreadable = reader.unreadableEntries();
        final Map<Action, long[]> live = new EnumMap<>(Action.class);
        final Map<Action, long[]> tombstoned = new EnumMap<>(Action.class);
        for (final Action action : Action.values())
        {
            live.put(action, new long[EntryKind.values().length]);
            tombstoned.put(action, new long[1]);
        }
        for (final TableEntry entry : entries)
        {
            if (entry.tombstoned())
            {
                tombstoned.get(entry.action())[0]++;
            }
            else
            {
                live.get(entry.action())[entry.kind().ordinal()]++;
            }
        }
        final Map<Action, EntryCounts> expected = new EnumMap<>(Action.class);
        for (final Action action : Action.values())
        {
            final long[] kinds = live.get(action);
            expected.put(action, new EntryCounts(kinds[0], kinds[1], kinds[2], kinds[3], tombstoned.get(action)[0], 0));
        }
        final Map<Action, EntryCounts> counted = reader.countEntriesByAction(null);
        assertEquals(expected, counted, "by action, against the " + entries.size() + " entries listed");
        assertEquals(unreadable, reader.unreadableEntries(), "both walks skip the same entries");
        EntryCounts sum = EntryCounts.NONE;
        for (final EntryCounts one : counted.values())
        {
            sum = sum.plus(one);
        }
        assertEquals(reader.countEntries(), sum, "the actions' counts add up to the whole table's");
        assertEquals(entries.size(), sum.entries());
        assertTrue(sum.tombstoned() > 200 && sum.blocked() > 1_000, "tombstoned and blocked counted: " + sum);
    }
}
