package dev.floodgate.door;

import dev.floodgate.Floodgate;
import dev.floodgate.ManualTicker;
import dev.floodgate.store.EntryLayout;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A bucket conversion killed after each of its steps: the next locker finishes or undoes it, and the bucket
 * then holds exactly the tokens an uninterrupted conversion leaves, never the spent ones forgiven nor
 * charged twice. Deterministic: a kill is simulated by running fewer steps.
 */
class BucketConversionTest
{
    private static final long MS = 1_000_000L;
    private static final long NOW = 7_200_000 * MS;

    private final ManualTicker ticker = new ManualTicker(NOW);
    private final AtomicLong generations = new AtomicLong(100);

    /** A bucket of 10 per minute, version 1, generation 5, with 6 tokens spent. */
    private UnsafeBuffer spentBucket()
    {
        final UnsafeBuffer value = new UnsafeBuffer(new byte[EntryLayout.valueLength(EntryLayout.KIND_BUCKET, 4)]);
        final TokenBucket units = new TokenBucket(10, 60_000);
        value.putLong(EntryLayout.GENERATION_OFFSET, 5);
        value.putInt(EntryLayout.UNITS_VERSION_OFFSET, 1);
        value.putLong(EntryLayout.LIMIT_OFFSET, 10);
        value.putLong(EntryLayout.WINDOW_MS_OFFSET, 60_000);
        value.putLong(EntryLayout.STATE_OFFSET, units.fullWord(NOW));
        for (int i = 0; i < 6; i++)
        {
            assertEquals(Floodgate.ADMITTED, units.tryAcquire(value, EntryLayout.STATE_OFFSET, ticker, 1,
                EntryLayout.GENERATION_OFFSET, 5));
        }
        return value;
    }

    private void convert(final UnsafeBuffer value, final long limit, final long windowMs, final long version,
        final int steps)
    {
        BucketConversion.run(value, generations::incrementAndGet, limit, windowMs, new TokenBucket(limit, windowMs),
            version, ticker.nanos(), steps);
    }

    private static long available(final UnsafeBuffer value, final long nowNanos)
    {
        return new TokenBucket(value.getLong(EntryLayout.LIMIT_OFFSET), value.getLong(EntryLayout.WINDOW_MS_OFFSET))
            .available(value.getLong(EntryLayout.STATE_OFFSET), nowNanos);
    }

    @ParameterizedTest(name = "killed after step {0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void shouldFinishOrUndoAConversionKilledAfterAnyStepWithoutForgivingDebt(final int steps)
    {
        final UnsafeBuffer reference = spentBucket();
        convert(reference, 20, 60_000, 2, BucketConversion.STEPS);
        assertEquals(14, available(reference, NOW), "20 minus the 6 spent");

        final UnsafeBuffer value = spentBucket();
        convert(value, 20, 60_000, 2, steps);
        final long generation = value.getLong(EntryLayout.GENERATION_OFFSET);
        final boolean frozen = value.getLong(EntryLayout.STATE_OFFSET) == TokenBucket.FROZEN;
        assertEquals(steps == 2 || steps == 3, frozen, "frozen from the side record's write to the new word's");
        if (frozen)
        {
            final TokenBucket units = new TokenBucket(10, 60_000);
            assertEquals(TokenBucket.STALE, units.tryAcquire(value, EntryLayout.STATE_OFFSET, ticker, 1,
                EntryLayout.GENERATION_OFFSET, generation), "no check moves a frozen word, in any units");
            assertFalse(units.isFull(TokenBucket.FROZEN, NOW), "the janitor never reaps a frozen bucket");
        }

        convert(value, 20, 60_000, 2, BucketConversion.STEPS); // the next locker
        assertEquals(reference.getLong(EntryLayout.STATE_OFFSET), value.getLong(EntryLayout.STATE_OFFSET));
        assertEquals(20, value.getLong(EntryLayout.LIMIT_OFFSET));
        assertEquals(60_000, value.getLong(EntryLayout.WINDOW_MS_OFFSET));
        assertEquals(2, value.getInt(EntryLayout.UNITS_VERSION_OFFSET));
        assertEquals(14, available(value, NOW));
        assertTrue(value.getLong(EntryLayout.GENERATION_OFFSET) != 5, "checks holding the old units resolve again");

        convert(value, 20, 60_000, 2, BucketConversion.STEPS); // a third locker: nothing to do
        assertEquals(reference.getLong(EntryLayout.STATE_OFFSET), value.getLong(EntryLayout.STATE_OFFSET));
    }

    @ParameterizedTest(name = "killed after step {0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void shouldConvertAKilledConversionToAStillNewerPolicyFromTheUnitsItsWordIsIn(final int steps)
    {
        final UnsafeBuffer value = spentBucket();
        convert(value, 20, 60_000, 2, steps);
        ticker.advanceMs(1_500); // a quarter token refilled at the first units
        convert(value, 4, 1_000, 3, BucketConversion.STEPS);
        assertEquals(4, value.getLong(EntryLayout.LIMIT_OFFSET));
        assertEquals(1_000, value.getLong(EntryLayout.WINDOW_MS_OFFSET));
        assertEquals(3, value.getInt(EntryLayout.UNITS_VERSION_OFFSET));
        assertEquals(0, available(value, ticker.nanos()), "6 spent of 10 (or 20) is a full debt of 4");
        ticker.advanceMs(250);
        assertEquals(1, available(value, ticker.nanos()), "refilling at 4 per second");
    }
}
