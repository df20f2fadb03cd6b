package dev.floodgate.door;

import dev.floodgate.Floodgate;
import dev.floodgate.ManualTicker;
import dev.floodgate.store.BucketWords;
import dev.floodgate.store.Entry;
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
        final UnsafeBuffer value = new UnsafeBuffer(new byte[EntryLayout.valueLength(Entry.KIND_BUCKET, 4)]);
        final TokenBucket units = new TokenBucket(10, 60_000);
        final Entry entry = new Entry(value);
        entry.publishGenerationVolatile(5);
        entry.publishUnitsVersionRelease(1);
        entry.putUnits(10, 60_000);
        BucketWords.putTatVolatile(entry, units.fullWord(NOW));
        for (int i = 0; i < 6; i++)
        {
            assertEquals(Floodgate.ADMITTED, units.tryAcquire(entry, ticker, 1, 5));
        }
        return value;
    }

    private void convert(final UnsafeBuffer value, final long limit, final long windowMs, final long version,
        final int steps)
    {
        BucketConversion.run(new Entry(value), generations::incrementAndGet, limit, windowMs, new TokenBucket(limit, windowMs),
            version, ticker::nanos, steps);
    }

    private static long available(final UnsafeBuffer value, final long nowNanos)
    {
        return new TokenBucket(new Entry(value).limit(), new Entry(value).windowMs())
            .available(BucketWords.tatVolatile(new Entry(value)), nowNanos);
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
        final long generation = new Entry(value).generationVolatile();
        final boolean frozen = BucketWords.tatVolatile(new Entry(value)) == TokenBucket.FROZEN;
        assertEquals(steps <= 3, frozen, "frozen from the first step to the new word's store");
        if (frozen)
        {
            final TokenBucket units = new TokenBucket(10, 60_000);
            assertEquals(TokenBucket.STALE, units.tryAcquire(new Entry(value), ticker, 1, generation), "no check moves a frozen word, in any units");
            assertFalse(units.isFull(TokenBucket.FROZEN, NOW), "the janitor never reaps a frozen bucket");
        }

        convert(value, 20, 60_000, 2, BucketConversion.STEPS); // the next locker
        assertEquals(BucketWords.tatVolatile(new Entry(reference)), BucketWords.tatVolatile(new Entry(value)));
        assertEquals(20, new Entry(value).limit());
        assertEquals(60_000, new Entry(value).windowMs());
        assertEquals(2, new Entry(value).unitsVersion());
        assertEquals(14, available(value, NOW));
        assertTrue(new Entry(value).generationVolatile() != 5, "checks holding the old units resolve again");

        convert(value, 20, 60_000, 2, BucketConversion.STEPS); // a third locker: nothing to do
        assertEquals(BucketWords.tatVolatile(new Entry(reference)), BucketWords.tatVolatile(new Entry(value)));
    }

    @ParameterizedTest(name = "killed after step {0}")
    @ValueSource(ints = {1, 2, 3, 4})
    void shouldConvertAKilledConversionToAStillNewerPolicyFromTheUnitsItsWordIsIn(final int steps)
    {
        final UnsafeBuffer value = spentBucket();
        convert(value, 20, 60_000, 2, steps);
        ticker.advanceMs(1_500); // a quarter token refilled at the first units
        convert(value, 4, 1_000, 3, BucketConversion.STEPS);
        assertEquals(4, new Entry(value).limit());
        assertEquals(1_000, new Entry(value).windowMs());
        assertEquals(3, new Entry(value).unitsVersion());
        assertEquals(0, available(value, ticker.nanos()), "6 spent of 10 (or 20) is a full debt of 4");
        ticker.advanceMs(250);
        assertEquals(1, available(value, ticker.nanos()), "refilling at 4 per second");
    }
}
