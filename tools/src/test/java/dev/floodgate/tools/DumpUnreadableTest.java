package dev.floodgate.tools;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.store.EntryBytes;
import dev.floodgate.store.QuotaTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** dump and stats say how many entries they could not read, where dump dropped a damaged entry unsaid. */
@Timeout(60)
class DumpUnreadableTest
{
    @TempDir
    Path dir;

    @Test
    void dumpAndStatsCountAnEntryWithADamagedActionByte()
    {
        final Path file = dir.resolve("damaged.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000)
            .cleanupIntervalMs(3_600_000).limit(Action.AUTH, 10, 60_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            gate.checkLimit("fine", Action.AUTH);
            gate.checkLimit("broken-id", Action.AUTH);
        }
        try (QuotaTable table = QuotaTable.open(file, 1, 1, false, System.nanoTime()))
        {
            table.scans().forEachEntryInPlace((key, entry) ->
            {
                if (entry.label().equals("broken-id"))
                {
                    EntryBytes.putAction(entry, (byte)120);
                }
            });
        }
        final Cli.Result dump = Cli.run("dump", "--file", file.toString());
        assertEquals(0, dump.code(), dump::toString);
        assertTrue(dump.out().contains("1 entry"), dump.out());
        assertFalse(dump.out().contains("broken-id"), dump.out());
        assertTrue(dump.out().contains("1 more unreadable (being written or damaged): not shown"), dump.out());
        final Cli.Result stats = Cli.run("stats", "--file", file.toString());
        assertTrue(stats.out().contains("1 unreadable: being written or damaged"), stats.out());
    }
}
