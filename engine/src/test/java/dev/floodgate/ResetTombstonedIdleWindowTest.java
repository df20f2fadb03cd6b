package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * 84476ae: reset says it cleared a tombstoned entry only when it held state, so that an entry the janitor
 * tombstoned as idle is "nothing to clear", as before 3557dd4. For a bucket, "held" is "not full", the janitor's own
 * idle test. For a window it is "some shard word is not 0": but the janitor tombstones a window entry when its
 * shards hold only windows that are over, and it leaves their words (tag and count) as they are. So a reset of an
 * identifier whose window the janitor has tombstoned as idle reports "window" cleared, where an idle bucket in the
 * same state reports nothing, and where reset said nothing before 3557dd4 (the ResetCommandTest regression 84476ae
 * fixed for buckets, left for windows).
 */
@Timeout(60)
class ResetTombstonedIdleWindowTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    @Test
    void shouldReportNothingForAWindowTheJanitorTombstonedAsIdle()
    {
        final ManualTicker ticker = new ManualTicker(7_200_000 * MS); // a whole number of windows
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("reset.map")).capacity(1_000)
            .ticker(ticker).limit(Action.PUBLISH, 5, 60_000).limit(Action.SUBSCRIBE, 5, 60_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("bob", Action.PUBLISH)); // bucket: one token
            assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("alice", Action.SUBSCRIBE)); // window: 1 of 5
            ticker.advanceMs(180_000); // the bucket refilled; the window is three windows over
            gate.cleanup(); // both idle: tombstoned, words kept
            assertEquals(List.of(), gate.resetEntries("bob", Action.PUBLISH),
                "an idle bucket the janitor tombstoned held nothing");
            assertEquals(List.of(), gate.resetEntries("alice", Action.SUBSCRIBE),
                "an idle window the janitor tombstoned held nothing either: its only window is over");
        }
    }
}
