package dev.floodgate;

import dev.floodgate.janitor.Janitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A blocked counter the janitor tombstoned (a day without a refusal) keeps its count until the grace period ends,
 * and a refusal within the grace revives it with that count. The reads must say the same: before, {@code
 * blockedCount} and {@code topBlocked} skipped a tombstoned entry and read 0 (and nothing) during the grace, and the
 * next refusal made the count jump from 0 to 6.
 */
@Timeout(60)
class TombstonedBlockedReadTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    @Test
    void shouldReadTheCountARevivalWouldBringBack()
    {
        final ManualTicker ticker = new ManualTicker(3_600_000 * MS);
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("blocked.map")).capacity(1_000)
            .ticker(ticker).limit(Action.PUBLISH, 1, 60_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH));
            for (int i = 0; i < 5; i++)
            {
                assertNotEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH));
            }
            ticker.advanceNanos(Janitor.BLOCKED_IDLE_NANOS + 1_000 * MS); // a day without a refusal
            gate.cleanup(); // tombstones the idle counter, its count kept for a revival
            assertEquals(5, gate.blockedCount("alice", Action.PUBLISH), "during the grace");
            assertEquals(List.of(new BlockedEntry("alice", 5)), gate.topBlocked(Action.PUBLISH, 10));

            assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH)); // the idle bucket is full
            assertNotEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH)); // revives the counter
            assertEquals(6, gate.blockedCount("alice", Action.PUBLISH), "after the revival");
            assertEquals(List.of(new BlockedEntry("alice", 6)), gate.topBlocked(Action.PUBLISH, 10));
        }
    }

    @Test
    void shouldNotListACounterAResetCleared()
    {
        final ManualTicker ticker = new ManualTicker(3_600_000 * MS);
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("reset.map")).capacity(1_000)
            .ticker(ticker).limit(Action.PUBLISH, 1, 60_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH));
            assertNotEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH));
            assertEquals(List.of("bucket", "blocked"), gate.resetEntries("alice", Action.PUBLISH));
            assertEquals(0, gate.blockedCount("alice", Action.PUBLISH));
            assertEquals(List.of(), gate.topBlocked(Action.PUBLISH, 10), "a reset counter is not among the blocked");
        }
    }
}
