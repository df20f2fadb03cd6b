package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.ManualTicker;
import dev.floodgate.store.Entry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.Resolved;
import dev.floodgate.testkit.BucketProber;
import dev.floodgate.testkit.DebuggedChild;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A probe whose entry's generation moved under every one of its reads (converted or reclaimed each time)
 * answered as for an entry that does not exist (a bucket full, a window new); a check in that case answers by the unreachable
 * rule, and so does the probe now. Found by review; fails before the fix.
 *
 * <p>Deterministic: the probe runs in a child JVM under the debugger, stopped each time {@code Probes} asks the
 * entry whether its generation is still the one it read; this JVM publishes a new generation there.
 */
@Timeout(120)
class ProbeMovingGenerationTest
{
    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"bucket", "window"})
    void shouldProbeAnEntryWhoseGenerationMovesUnderEveryReadAsTheUnreachableRule(final String door) throws Exception
    {
        final boolean window = door.equals("window");
        final byte kind = window ? Entry.KIND_WINDOW : Entry.KIND_BUCKET;
        final Path file = dir.resolve("moving.map");
        final ManualTicker ticker = new ManualTicker(3_600_000_000_000L);
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).ticker(ticker)
            .cleanupIntervalMs(3_600_000).limit(Action.AUTH, 10, 60_000).build());
             QuotaTable table = QuotaTable.open(file, 1, 1, false, ticker.nanos()))
        {
            for (int i = 0; i < 10; i++)
            {
                assertEquals(Floodgate.ADMITTED, window ? gate.checkLimitInCaller("alice", Action.AUTH) :
                    gate.checkLimit("alice", Action.AUTH));
            }
            final int[] moved = {0};
            final String log;
            try (DebuggedChild child = DebuggedChild.start(BucketProber.class, List.of(file.toString(), "alice", door)))
            {
                child.runStoppingAtEntry(Entry.class.getName(), "isCurrentAcquire", hit ->
                {
                    if (hit.thread().frame(1).location().method().name().equals(window ? "nodeWindow" : "nodeBucket"))
                    {
                        // the probe read the words in place and now asks if they are still the entry's: a
                        // conversion or a reclaim moved the generation meanwhile
                        final Resolved found = table.lookup().peek(kind, Action.AUTH, "alice");
                        found.entry().publishGenerationVolatile(table.header().nextGeneration());
                        moved[0]++;
                    }
                });
                log = child.transcript();
            }
            assertEquals(Doors.ATTEMPTS, moved[0], "the probe looked again each time: " + log);
            assertTrue(log.contains("PROBE 10 0 50 50"), "an entry the probe could not read consistently, spent " +
                "to 0, answered as the unreachable rule (refuse, 50 ms), not as full or new: " + log.replace('\n', ' '));
        }
    }
}
