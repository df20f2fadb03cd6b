package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.ManualTicker;
import dev.floodgate.Probe;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A probe of a bucket whose conversion a killed process left (the word frozen, or converted with the version not
 * yet recorded) answers what the next check would find, from the side record, and writes nothing: it said
 * "full" (found by review).
 */
@Timeout(60)
class FrozenProbeTest
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

    @ParameterizedTest(name = "killed after step {0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void shouldProbeABucketAKilledConversionLeftAsTheNextCheckWouldFindIt(final int steps)
    {
        final Path file = dir.resolve("frozen.map");
        try (Floodgate gate = Floodgate.open(config(file, 10)))
        {
            for (int i = 0; i < 6; i++)
            {
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.1", Action.AUTH));
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.2", Action.AUTH));
            }
            ticker.advanceMs(1_000);
            gate.reconfigure(config(file, 20));
            // killed at the probe's instant, so its conversion rounds as a check's would now
            KilledConversion.leave(file, Action.AUTH, "10.0.0.1", 20, 60_000, steps, ticker.nanos());

            final Probe untouched = gate.probe("10.0.0.2", Action.AUTH);
            assertEquals(new Probe(20, 14, 0, untouched.resetMs()), untouched, "20 minus the 6 spent");
            assertEquals(untouched, gate.probe("10.0.0.1", Action.AUTH), "the killed conversion's bucket, probed");
            assertEquals(untouched, gate.probe("10.0.0.1", Action.AUTH), "and the probe wrote nothing");
            for (int i = 0; i < 14; i++)
            {
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.1", Action.AUTH), "token " + i);
            }
            assertEquals(0, gate.probe("10.0.0.1", Action.AUTH).remaining(), "the checks found what the probe said");
        }
    }
}
