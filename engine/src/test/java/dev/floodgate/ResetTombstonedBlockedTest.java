package dev.floodgate;

import dev.floodgate.janitor.Janitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code TableAdmin.reset} skips an entry that is already tombstoned ({@code if (value.isTombstonedVolatile())
 * return false}), leaving its state words as they are. A janitor tombstone keeps the state (a check revives the
 * entry with it: {@code EntryResolver} only publishes a new generation). A blocked counter is tombstoned after a day
 * without a refusal with its count intact; a reset during the grace period before its removal clears nothing and
 * says so ("blocked" is missing from what it reports), and the next refusal revives the old count: after
 * {@code reset}, {@code blockedCount} and {@code topBlocked} show the refusals from before it.
 */
@Timeout(60)
class ResetTombstonedBlockedTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    @Test
    void shouldClearABlockedCountTheJanitorHasTombstoned()
    {
        final ManualTicker ticker = new ManualTicker(3_600_000 * MS);
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("reset.map")).capacity(1_000)
            .ticker(ticker).limit(Action.PUBLISH, 1, 60_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH));
            for (int i = 0; i < 5; i++)
            {
                assertTrue(gate.checkLimit("alice", Action.PUBLISH) != Floodgate.ADMITTED);
            }
            assertEquals(5, gate.blockedCount("alice", Action.PUBLISH));
            ticker.advanceNanos(Janitor.BLOCKED_IDLE_NANOS + 1_000 * MS); // a day without a refusal
            gate.cleanup(); // pass k: the idle bucket and blocked counter are tombstoned, counts kept
            final List<String> cleared = gate.resetEntries("alice", Action.PUBLISH); // within the grace period
            assertEquals(List.of("blocked"), cleared, "the tombstoned counter held 5 refusals; the idle bucket is full");
            assertEquals(List.of(), gate.resetEntries("alice", Action.PUBLISH), "a second reset finds nothing");
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH));
            assertTrue(gate.checkLimit("alice", Action.PUBLISH) != Floodgate.ADMITTED); // revives the counter
            assertEquals(1, gate.blockedCount("alice", Action.PUBLISH),
                "refusals since the reset (it reported clearing " + cleared + ")");
        }
    }
}
