package dev.floodgate;

import dev.floodgate.metrics.FloodgateMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code stats()} and {@code topBlocked()} read the table by its path, read-only, while checks use the instance's
 * mapping. Once the file is removed from under the instance ({@code rm}, systemd's {@code RemoveIPC} on
 * {@code /dev/shm}), the instance still enforces, and those two must say that what is at the path is not its table
 * (not "no such file", nor another file's figures), and a meter scrape must not throw (found by review: the
 * binder caught {@code IllegalStateException} only).
 */
@Timeout(60)
class StatsReadsThePathTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    @Test
    void shouldSayItsTableIsGoneFromItsPathAndKeepScrapesWhole() throws Exception
    {
        final ManualTicker ticker = new ManualTicker(3_600_000 * MS);
        final Path file = dir.resolve("stats.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000).ticker(ticker)
            .limit(Action.PUBLISH, 1, 60_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            final SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new FloodgateMetrics(gate).bindTo(registry);
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH));
            assertTrue(gate.checkLimit("alice", Action.PUBLISH) > 0); // refused: alice's blocked count is 1
            assertEquals(1_000, gate.stats().capacity());
            Files.delete(file);
            ticker.advanceNanos(2_000 * MS); // past the meters' one-second cache
            assertEquals(1, gate.blockedCount("alice", Action.PUBLISH), "from the mapped table");
            assertTrue(gate.checkLimit("alice", Action.PUBLISH) > 0, "still enforced on the mapping");
            for (final Executable read : new Executable[] {gate::stats, () -> gate.topBlocked(Action.PUBLISH, 10)})
            {
                final FloodgateFileException gone = assertThrows(FloodgateFileException.class, read::run);
                assertTrue(gone.getMessage().contains("no longer the table this instance maps"), gone.getMessage());
            }
            assertTrue(Double.isNaN(registry.get("floodgate.table.capacity").gauge().value()),
                "a node meter once its table is gone from its path");
            assertEquals(2, registry.get("floodgate.checks").tags("action", "publish", "outcome", "refused")
                .functionCounter().count(), "this process's meters still count");
        }
    }

    private interface Executable
    {
        void run() throws Exception;
    }
}
