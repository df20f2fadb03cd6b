package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code reconfigure} converts a bucket's word to the new units on its next check ({@code TokenBucket.convert}):
 * the debt in old units times the new emission interval over the old one. From a high rate (1,000,000 per second,
 * interval 1,000 units) to a slow one (1 per week, interval 6.048e14 units), a debt of more than about 15,000
 * tokens makes that quotient exceed a long, and {@code BigInteger.longValueExact} throws before the result is
 * clamped to the new capacity ({@code Math.min(converted, to.span)}). The {@code ArithmeticException} leaves the
 * conversion half done (word frozen, new units written): every later check of that identifier undoes it, converts
 * again and throws again. Expected: the debt exceeds the new capacity, so the bucket is empty (a retry-after).
 */
@Timeout(60)
class ReconfigureConversionOverflowTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    @Test
    void shouldConvertADebtLargerThanTheNewCapacityToAnEmptyBucket()
    {
        final ManualTicker ticker = new ManualTicker(3_600_000 * MS);
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("convert.map")).capacity(1_000)
            .ticker(ticker).limit(Action.PUBLISH, 1_000_000, 1_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH, 1_000_000)); // all spent
            gate.reconfigure(FloodgateConfig.builder().file(config.file()).capacity(1_000).ticker(ticker)
                .limit(Action.PUBLISH, 1, FloodgateConfig.MAX_WINDOW_MS).build());
            final long first = assertDoesNotThrow(() -> gate.checkLimit("alice", Action.PUBLISH),
                "the first check under the new policy");
            assertTrue(first != Floodgate.ADMITTED, "1,000,000 tokens spent, new capacity 1: empty, got " + first);
            assertDoesNotThrow(() -> gate.checkLimit("alice", Action.PUBLISH), "a later check of the same key");
        }
    }

    /** The same arithmetic behind a probe ({@code EntryArithmetic.bucket}) and the reader's entry state (dump). */
    @Test
    void shouldProbeADebtLargerThanTheNewCapacityAsEmpty()
    {
        final ManualTicker ticker = new ManualTicker(3_600_000 * MS);
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("probe.map")).capacity(1_000)
            .ticker(ticker).limit(Action.PUBLISH, 1_000_000, 1_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("alice", Action.PUBLISH, 1_000_000));
            gate.reconfigure(FloodgateConfig.builder().file(config.file()).capacity(1_000).ticker(ticker)
                .limit(Action.PUBLISH, 1, FloodgateConfig.MAX_WINDOW_MS).build());
            final Probe probe = assertDoesNotThrow(() -> gate.probe("alice", Action.PUBLISH));
            assertEquals(0, probe.remaining(), "1,000,000 tokens spent, new capacity 1");
        }
    }
}
