package dev.floodgate.reader;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.ManualTicker;
import dev.floodgate.store.BucketWords;
import dev.floodgate.store.Entry;
import dev.floodgate.FloodgateFileException;
import dev.floodgate.store.KeyHasher;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.ShardWords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What the read-only reader reads back equals what the writer sees, before and after a policy change. */
class FloodgateReaderTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    private final ManualTicker ticker = new ManualTicker(3_600_000 * MS);

    private FloodgateConfig config(final Path file)
    {
        return FloodgateConfig.builder().file(file).capacity(10_000).ticker(ticker).cleanupIntervalMs(3_600_000)
            .limit(Action.AUTH, 5, 60_000).limit(Action.PUBLISH, 10, 1_000).build();
    }

    @Test
    void readsBackWhatTheWriterWroteAndComputesStateAsTheDoorsDo() throws Exception
    {
        final Path file = dir.resolve("t.map");
        final FloodgateConfig config = config(file);
        try (Floodgate gate = Floodgate.open(config))
        {
            for (int i = 0; i < 3; i++)
            {
                gate.checkLimit("10.0.0.1", Action.AUTH);
            }
            for (int i = 0; i < 7; i++)
            {
                gate.checkLimit("10.0.0.2", Action.AUTH); // 5 admitted, 2 refused
            }
            gate.checkLimit("10.0.0.3", Action.AUTH);
            gate.reset("10.0.0.3", Action.AUTH); // tombstoned
            for (int i = 0; i < 12; i++)
            {
                gate.checkLimitInCaller("alice", Action.PUBLISH); // 10 admitted, 2 refused
            }
            // Policy change: the bucket's units convert at the next check, the window's regime at a boundary.
            gate.reconfigure(config.toBuilder().limit(Action.AUTH, 10, 60_000).limit(Action.PUBLISH, 4, 1_000)
                .build());
            ticker.advanceMs(1_200);
            for (int i = 0; i < 3; i++)
            {
                assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("alice", Action.PUBLISH));
            }

            try (FloodgateReader reader = FloodgateReader.open(file))
            {
                assertEquals(gate.policy(), reader.policy());
                assertEquals(gate.checks(), reader.checks()); // gate.checks() flushes this process's counts first
                assertEquals(1, reader.attachedProcesses());
                assertEquals(gate.shards(), reader.identity().shards());
                assertEquals(10_000, reader.identity().capacity());
                final List<TableEntry> entries = reader.entries();
                assertEquals(0, reader.unreadableEntries());
                assertEquals(reader.counters().entryCount(), entries.size());
                assertEquals(1, entries.stream().filter(TableEntry::tombstoned).count());
                for (final TableEntry entry : entries)
                {
                    if (entry.kind() == EntryKind.BLOCKED)
                    {
                        assertEquals(gate.blockedCount(entry.label(), entry.action()), entry.blocked(), entry.label());
                    }
                }
                assertEquals(gate.stats().blockedEntries(), entries.stream()
                    .filter(e -> e.kind() == EntryKind.BLOCKED && !e.tombstoned()).count());
                final long now = ticker.nanos();
                final TableEntry ip1 = find(entries, EntryKind.BUCKET, "10.0.0.1");
                final EntryState bucket = reader.state(ip1, now);
                assertEquals(10, bucket.capacity(), "in the new policy's units, as the next check converts");
                assertEquals(bucket.tokens(), admittedUntilRefused(() -> gate.checkLimit("10.0.0.1", Action.AUTH)));
                final TableEntry alice = find(entries, EntryKind.WINDOW, "alice");
                final EntryState window = reader.state(alice, now);
                assertEquals(4, window.windowLimit());
                assertEquals(3, window.windowUsed());
                assertEquals(4, java.util.Arrays.stream(window.shardCap()).sum());
                assertEquals(1, admittedUntilRefused(() -> gate.checkLimitInCaller("alice", Action.PUBLISH)));
            }
        }
        // Entry for entry, word for word, what Chronicle Map itself iterates under its locks.
        final Set<String> viaChronicle = new TreeSet<>();
        try (QuotaTable table = QuotaTable.open(file, 1, 1, false, ticker.nanos()))
        {
            table.scans().forEachEntry((key, value) ->
            {
                final Entry entry = new Entry(value);
                final StringBuilder words = new StringBuilder();
                for (int shard = 0, n = ShardWords.count(entry); shard < n; shard++)
                {
                    words.append(ShardWords.wordPlain(entry, shard)).append(',');
                }
                viaChronicle.add(key[KeyHasher.KIND_INDEX] + " " + entry.action() + " " +
                    entry.label() + " " + entry.generationVolatile() + " " +
                    BucketWords.tatVolatile(entry) + " " + words);
            });
        }
        final Set<String> viaReader = new TreeSet<>();
        try (FloodgateReader reader = FloodgateReader.open(file))
        {
            for (final TableEntry e : reader.entries())
            {
                final StringBuilder words = new StringBuilder();
                for (final long word : e.shardWords())
                {
                    words.append(word).append(',');
                }
                viaReader.add((e.kind().ordinal() + 1) + " " + e.action() + " " + e.label() + " " + e.generation() +
                    " " + (e.kind() == EntryKind.BUCKET ? e.stateWord() : 0) + " " + words);
            }
            assertEquals(0, reader.attachedProcesses(), "the writer has closed; the reader never registered");
        }
        assertEquals(viaChronicle, viaReader);
    }

    @Test
    void walksWhileAWriterInsertsAndTheJanitorRemovesWithoutThrowingOrInventingEntries() throws Exception
    {
        final Path file = dir.resolve("busy.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(10_000).ticker(ticker)
            .cleanupIntervalMs(3_600_000).reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).limit(Action.AUTH, 5, 60_000).build();
        try (Floodgate gate = Floodgate.open(config); FloodgateReader reader = FloodgateReader.open(file))
        {
            final CompletableFuture<Void> writer = CompletableFuture.runAsync(() ->
            {
                for (int round = 0; round < 4; round++)
                {
                    for (int i = 0; i < 1_500; i++)
                    {
                        gate.checkLimit("id-" + round + "-" + i, Action.AUTH);
                    }
                    ticker.advanceMs(120_000); // every bucket full again: the janitor tombstones, then reaps
                    gate.cleanup();
                    ticker.advanceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS + 100); // past the reclamation grace period
                    gate.cleanup();
                }
            });
            int walks = 0;
            while (!writer.isDone() || walks == 0)
            {
                for (final TableEntry entry : reader.entries())
                {
                    assertEquals(EntryKind.BUCKET, entry.kind(), entry::toString);
                    assertEquals(Action.AUTH, entry.action());
                    assertTrue(entry.label().matches("id-[0-3]-[0-9]{1,4}"), entry.label());
                }
                walks++;
            }
            writer.get(60, TimeUnit.SECONDS);
            assertTrue(walks > 0);
            assertTrue(gate.stats().reaped() > 0, "the janitor removed entries during the walks");
        }
    }

    @Test
    void countsTheEntriesTheListHoldsByKindAndStatsReportsThoseCounts() throws Exception
    {
        final Path file = dir.resolve("counted.map");
        try (Floodgate gate = Floodgate.open(config(file)); FloodgateReader reader = FloodgateReader.open(file))
        {
            for (int i = 0; i < 6; i++)
            {
                gate.checkLimit("10.0.0." + i, Action.AUTH);
            }
            for (int i = 0; i < 4; i++)
            {
                gate.checkLimitInCaller("user-" + i, Action.PUBLISH);
            }
            for (int i = 0; i < 7; i++)
            {
                gate.checkLimit("10.0.0.0", Action.AUTH); // refused from the fifth: a blocked counter
                gate.checkLimitInCaller("user-0", Action.PUBLISH);
            }
            for (int i = 0; i < 4; i++)
            {
                gate.checkLimitInCaller("user-0", Action.PUBLISH); // its 11th and 12th are refused: a blocked counter
            }
            gate.reset("10.0.0.1", Action.AUTH); // its bucket tombstoned
            gate.reset("10.0.0.0", Action.AUTH); // its bucket and blocked counter tombstoned

            final EntryCounts counts = assertCountsAsTheListDoes(reader);
            assertEquals(new EntryCounts(4, 4, 1, 0, 3, 0), counts, "the table's known content");
            assertStatsReport(gate.stats(), counts);

            ticker.advanceMs(2_000); // every window over: the janitor tombstones the idle ones
            gate.cleanup();
            final EntryCounts aged = assertCountsAsTheListDoes(reader);
            assertTrue(aged.tombstoned() > counts.tombstoned(), "the janitor tombstoned idle entries: " + aged);
            assertStatsReport(gate.stats(), aged);
        }
    }

    /** @return the counting walk's counts, checked against a count over the list a walk of the same table returns. */
    private static EntryCounts assertCountsAsTheListDoes(final FloodgateReader reader)
    {
        final long[] live = new long[EntryKind.values().length];
        long tombstoned = 0;
        long leaseBalance = 0;
        final List<TableEntry> entries = reader.entries();
        final long unreadable = reader.unreadableEntries();
        for (final TableEntry entry : entries)
        {
            if (entry.tombstoned())
            {
                tombstoned++;
            }
            else
            {
                live[entry.kind().ordinal()]++;
                leaseBalance += entry.leaseBalance();
            }
        }
        final EntryCounts counts = reader.countEntries();
        assertEquals(new EntryCounts(live[EntryKind.BUCKET.ordinal()], live[EntryKind.WINDOW.ordinal()],
            live[EntryKind.BLOCKED.ordinal()], live[EntryKind.LEASE.ordinal()], tombstoned, leaseBalance), counts,
            "the counting walk against a count over the " + entries.size() + " entries listed");
        assertEquals(unreadable, reader.unreadableEntries(), "both walks skip the same entries");
        assertEquals(reader.cluster(entries), reader.cluster(counts), "the cluster figures from either");
        return counts;
    }

    private static void assertStatsReport(final dev.floodgate.Stats stats, final EntryCounts counts)
    {
        assertEquals(List.of(counts.buckets(), counts.windows(), counts.blocked(), counts.tombstoned(),
                counts.leases(), counts.leaseBalance()),
            List.of(stats.buckets(), stats.windowCounters(), stats.blockedEntries(), stats.tombstoned(),
                stats.cluster().leasesHeld(), stats.cluster().tokensUnused()), stats::toString);
    }

    @Test
    void refusesAFileThatIsNotATableWithItsName() throws Exception
    {
        final Path file = Files.write(dir.resolve("text.map"), "not a table at all\n".repeat(100).getBytes());
        final FloodgateFileException ex = assertThrows(FloodgateFileException.class, () -> FloodgateReader.open(file));
        assertTrue(ex.getMessage().contains(file.toString()) && ex.getMessage().contains("not a Floodgate table"),
            ex.getMessage());
        assertThrows(FloodgateFileException.class, () -> FloodgateReader.open(dir.resolve("missing.map")));
        assertTrue(Files.notExists(dir.resolve("missing.map")), "a reader never creates the file");
    }

    @Test
    void skipsAndCountsEntriesOfADamagedTierWithoutThrowing() throws Exception
    {
        final Path file = dir.resolve("damaged.map");
        try (Floodgate gate = Floodgate.open(config(file)))
        {
            for (int i = 0; i < 2_000; i++)
            {
                gate.checkLimit("id-" + i, Action.AUTH);
            }
        }
        final long firstTier;
        final int tierSize;
        final int expected;
        try (ReadOnlyMapping mapping = ReadOnlyMapping.open(file); FloodgateReader reader = FloodgateReader.open(file))
        {
            final ChronicleLayout layout = ChronicleLayout.read(mapping);
            final int home = layout.homeSegment(new byte[KeyHasher.KEY_LENGTH]);
            firstTier = layout.firstTier(home == 0 ? 1 : 0); // a segment without the file's record
            tierSize = layout.tierSize;
            expected = reader.entries().size();
            assertEquals(2_000, expected);
        }
        final byte[] noise = new byte[tierSize];
        new java.util.Random(11).nextBytes(noise);
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file,
            java.nio.file.StandardOpenOption.WRITE))
        {
            channel.write(java.nio.ByteBuffer.wrap(noise), firstTier);
        }
        try (FloodgateReader reader = FloodgateReader.open(file))
        {
            final List<TableEntry> entries = reader.entries();
            assertTrue(entries.size() < expected, "the damaged tier's entries are gone: " + entries.size());
            assertTrue(reader.unreadableEntries() > 0, "and counted");
            assertEquals(entries.size(), assertCountsAsTheListDoes(reader).buckets(), "counted as they are listed");
            for (final TableEntry entry : entries)
            {
                assertTrue(entry.label().matches("id-[0-9]{1,4}"), entry::toString);
            }
        }
    }

    private static TableEntry find(final List<TableEntry> entries, final EntryKind kind, final String label)
    {
        final List<TableEntry> found = new ArrayList<>();
        for (final TableEntry entry : entries)
        {
            if (entry.kind() == kind && entry.label().equals(label) && !entry.tombstoned())
            {
                found.add(entry);
            }
        }
        assertEquals(1, found.size(), kind + " " + label + " in " + entries);
        return found.get(0);
    }

    private static long admittedUntilRefused(final java.util.function.LongSupplier check)
    {
        long admitted = 0;
        while (check.getAsLong() == Floodgate.ADMITTED)
        {
            assertTrue(++admitted <= 100, "never refused");
        }
        return admitted;
    }
}
