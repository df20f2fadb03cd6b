package dev.floodgate.reader;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.ManualTicker;
import dev.floodgate.door.KilledConversion;
import dev.floodgate.store.EntryBytes;
import dev.floodgate.store.QuotaTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BiConsumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * What the read-only reader shows of a bucket a killed conversion left: what the next check will find (found by
 * review: it read the frozen sentinel as a word, and showed 20 of 20 tokens, or 0 and full, where the bucket held 14);
 * and that it counts an entry whose kind or action byte is out of range as unreadable, where it dropped it unsaid.
 */
@Timeout(60)
class FrozenReaderTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    private final ManualTicker ticker = new ManualTicker(3_600_000 * MS);

    private FloodgateConfig config(final Path file, final long limit)
    {
        return FloodgateConfig.builder().file(file).capacity(1_000).ticker(ticker).cleanupIntervalMs(3_600_000)
            .limit(Action.AUTH, limit, 60_000).build();
    }

    private static TableEntry find(final List<TableEntry> entries, final String label)
    {
        return entries.stream().filter(e -> e.label().equals(label)).findFirst().orElse(null);
    }

    @ParameterizedTest(name = "killed after step {0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void shouldShowABucketAKilledConversionLeftAsTheNextCheckWouldFindIt(final int steps) throws Exception
    {
        final Path file = dir.resolve("frozen.map");
        try (Floodgate gate = Floodgate.open(config(file, 10)))
        {
            for (int i = 0; i < 6; i++)
            {
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.1", Action.AUTH));
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.2", Action.AUTH));
            }
            gate.reconfigure(config(file, 20));
            KilledConversion.leave(file, Action.AUTH, "10.0.0.1", 20, 60_000, steps, ticker.nanos());
        }
        final byte[] before = Files.readAllBytes(file);
        try (FloodgateReader reader = FloodgateReader.open(file))
        {
            final List<TableEntry> entries = reader.entries();
            final EntryState untouched = reader.state(find(entries, "10.0.0.2"), ticker.nanos());
            assertEquals(14, untouched.tokens(), "20 minus the 6 spent");
            final EntryState killed = reader.state(find(entries, "10.0.0.1"), ticker.nanos());
            assertEquals(untouched.tokens(), killed.tokens(), "the killed conversion's bucket: " + killed);
            assertEquals(20, killed.capacity());
            assertEquals(untouched.nextTokenNs(), killed.nextTokenNs());
            assertEquals(0, reader.unreadableEntries());
        }
        assertEquals(java.util.Arrays.hashCode(before), java.util.Arrays.hashCode(Files.readAllBytes(file)),
            "the reader wrote nothing");
        try (Floodgate gate = Floodgate.open(config(file, 20)))
        {
            for (int i = 0; i < 14; i++)
            {
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.1", Action.AUTH), "token " + i);
            }
            assertEquals(0, gate.probe("10.0.0.1", Action.AUTH).remaining(), "the checks found what it showed");
        }
    }

    @Test
    void shouldCountAnEntryWithAKindOrActionOutOfRangeAsUnreadable()
    {
        final Path file = dir.resolve("damaged.map");
        try (Floodgate gate = Floodgate.open(config(file, 10)))
        {
            gate.checkLimit("kind", Action.AUTH);
            gate.checkLimit("action", Action.AUTH);
            gate.checkLimit("fine", Action.AUTH);
        }
        try (QuotaTable table = QuotaTable.open(file, 1, 1, false, ticker.nanos()))
        {
            final BiConsumer<String, dev.floodgate.store.Entry> damage = (label, entry) ->
            {
                if (label.equals("kind"))
                {
                    EntryBytes.putKind(entry, (byte)9);
                }
                else if (label.equals("action"))
                {
                    EntryBytes.putAction(entry, (byte)120);
                }
            };
            table.scans().forEachEntryInPlace((key, entry) -> damage.accept(entry.label(), entry));
        }
        try (FloodgateReader reader = FloodgateReader.open(file))
        {
            final List<TableEntry> entries = reader.entries();
            assertEquals(1, entries.size(), entries::toString);
            assertNull(find(entries, "kind"));
            assertEquals(2, reader.unreadableEntries(), "the two damaged entries, counted");
        }
    }
}
