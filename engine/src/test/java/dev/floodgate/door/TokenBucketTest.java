package dev.floodgate.door;

import dev.floodgate.Floodgate;
import dev.floodgate.store.BucketWords;
import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLayout;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TokenBucketTest
{
    private static final long MS = 1_000_000L;

    static Stream<Arguments> configurations()
    {
        // limit, window ms, start time (including negative and near-overflow monotonic readings)
        return Stream.of(
            Arguments.of(10L, 60_000L, 5_000_000_000L),
            Arguments.of(1L, 1_000L, -7_000_000_000L),
            Arguments.of(3L, 1L, 123L),
            Arguments.of(7L, 60_000L, Long.MAX_VALUE - 30_000_000_000L),
            Arguments.of(1_009L, 60_000L, 42L),
            Arguments.of(16_000_000L, 1_000L, 0L));
    }

    /** A full bucket entry of generation 0. */
    private static Entry word(final TokenBucket bucket, final long now)
    {
        final Entry entry = new Entry(new UnsafeBuffer(new byte[EntryLayout.valueLength(Entry.KIND_BUCKET, 1)]));
        entry.publishGenerationVolatile(0);
        BucketWords.putTatVolatile(entry, bucket.fullWord(now));
        return entry;
    }

    /** One token at {@code now}, as a check claims it. */
    private static long acquire(final TokenBucket bucket, final Entry entry, final long now)
    {
        return bucket.tryAcquire(entry, () -> now, 1, 0);
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void shouldStartFullAndAdmitExactlyLimitAtOneInstant(final long limit, final long windowMs, final long start)
    {
        final TokenBucket bucket = new TokenBucket(limit, windowMs);
        final Entry buffer = word(bucket, start);
        final long burst = Math.min(limit, 100_000);
        for (long i = 0; i < burst; i++)
        {
            assertEquals(Floodgate.ADMITTED, acquire(bucket, buffer, start), "token " + i);
        }
        if (burst == limit)
        {
            final long retry = acquire(bucket, buffer, start);
            assertTrue(retry >= 1, "refused once empty");
            final long intervalNs = Math.max(1, windowMs * MS / limit);
            assertEquals(Math.max(1, -Math.floorDiv(-intervalNs, MS)), retry, "retry-after is one interval");
        }
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void shouldNeverRefuseAClientPacingAtExactlyTheRate(final long limit, final long windowMs, final long start)
    {
        final TokenBucket bucket = new TokenBucket(limit, windowMs);
        final Entry buffer = word(bucket, start);
        final long windowNs = windowMs * MS;
        final long burst = Math.min(limit, 1_000);
        for (long i = 0; i < burst; i++)
        {
            acquire(bucket, buffer, start);
        }
        if (burst < limit)
        {
            return; // pacing from empty is what matters; only tested where the bucket can be drained cheaply
        }
        // the k-th token after the burst becomes due at exactly start + k * window / limit (rounded up to a ns)
        for (long k = 1; k <= 3_000; k++)
        {
            final long due = start + ceilDiv(k * windowNs, limit);
            assertEquals(Floodgate.ADMITTED, acquire(bucket, buffer, due), "token " + k + " due at " + due);
            assertTrue(acquire(bucket, buffer, due) >= 1, "no token " + k + " twice");
        }
    }

    @ParameterizedTest
    @MethodSource("configurations")
    void shouldLoseNoFractionalCreditOverManyIntervals(final long limit, final long windowMs, final long start)
    {
        final TokenBucket bucket = new TokenBucket(limit, windowMs);
        final Entry buffer = word(bucket, start);
        if (limit > 1_000)
        {
            return;
        }
        for (long i = 0; i < limit; i++)
        {
            acquire(bucket, buffer, start);
        }
        // after exactly w windows, exactly w * limit more tokens, not one more
        final long windows = 5;
        final long later = start + windows * windowMs * MS;
        long admitted = 0;
        while (acquire(bucket, buffer, later) == Floodgate.ADMITTED)
        {
            admitted++;
        }
        assertEquals(limit, admitted, "a full bucket holds limit tokens however long it idled");
        final Entry paced = word(bucket, start);
        for (long i = 0; i < limit; i++)
        {
            acquire(bucket, paced, start);
        }
        long total = 0;
        for (long t = 1; t <= windows * limit; t++)
        {
            final long at = start + ceilDiv(t * windowMs * MS, limit);
            while (acquire(bucket, paced, at) == Floodgate.ADMITTED)
            {
                total++;
            }
        }
        assertEquals(windows * limit, total, "exactly limit tokens per window, no drift");
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 10, 300})
    void shouldTreatAClockBehindTheBucketAsNoElapsedTime(final long limit)
    {
        final TokenBucket bucket = new TokenBucket(limit, 60_000);
        final long start = 10_000_000_000L;
        final Entry buffer = word(bucket, start);
        for (long i = 0; i < limit; i++)
        {
            assertEquals(Floodgate.ADMITTED, acquire(bucket, buffer, start));
        }
        // another process's clock read a little earlier: no refund, no exception
        assertTrue(acquire(bucket, buffer, start - 5_000 * MS) >= 1);
        assertTrue(acquire(bucket, buffer, start) >= 1);
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 10, 1_009})
    void shouldReportAvailableTokensAndTimeToNext(final long limit)
    {
        final TokenBucket bucket = new TokenBucket(limit, 1_000);
        final long start = 77L;
        final Entry buffer = word(bucket, start);
        assertEquals(limit, bucket.available(BucketWords.tatVolatile(buffer), start));
        assertEquals(0, bucket.nanosToNextToken(BucketWords.tatVolatile(buffer), start));
        assertTrue(bucket.isFull(BucketWords.tatVolatile(buffer), start));
        acquire(bucket, buffer, start);
        assertEquals(limit - 1, bucket.available(BucketWords.tatVolatile(buffer), start));
        assertFalse(bucket.isFull(BucketWords.tatVolatile(buffer), start));
        assertEquals(ceilDiv(1_000 * MS, limit), bucket.nanosToNextToken(BucketWords.tatVolatile(buffer), start));
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 10, 1_009, 16_000_000})
    void shouldReadAWordIdleLongEnoughToWrapAsFull(final long limit)
    {
        final TokenBucket bucket = new TokenBucket(limit, 1_000);
        final Entry buffer = word(bucket, 0);
        acquire(bucket, buffer, 0);
        // any time far later, including after the scaled word wrapped around 2^64
        // up to the documented bound: 2^63 / MAX_SCALE ns (104 days) untouched
        for (long later : new long[] {1L << 40, 1L << 50, Long.MAX_VALUE / TokenBucket.MAX_SCALE})
        {
            assertTrue(bucket.isFull(BucketWords.tatVolatile(buffer), later), "idle until " + later);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, -1})
    void shouldRejectANonPositiveLimit(final long limit)
    {
        assertFalse(TokenBucket.fits(limit, 1_000));
    }

    @org.junit.jupiter.api.Test
    void shouldRejectRatesItCannotRepresentExactly()
    {
        assertTrue(TokenBucket.fits(16_000_000, 1_000));
        assertTrue(TokenBucket.fits(10, 7L * 24 * 3600 * 1000));
        assertTrue(TokenBucket.fits(1_009, 60_000), "a prime limit below the scale bound");
        assertFalse(TokenBucket.fits(999_983, 1_000), "a large prime limit cannot be represented exactly");
        assertFalse(TokenBucket.fits(16_777_215, 1_000));
        assertFalse(TokenBucket.fits(1, 0));
    }

    /**
     * A claim given back half a window later returns only what is still ahead of the clock: the bucket then holds
     * what it would had the claim never been made, less what another check took meanwhile. Before, the whole claim
     * went back on top of what had refilled while it was held: a full bucket after a claim of all of it, half a window
     * and a claim of half of it (found by review, through a refused charge).
     */
    @ParameterizedTest
    @MethodSource("configurations")
    void shouldGiveBackOnlyWhatIsStillAheadOfTheClock(final long limit, final long windowMs, final long start)
    {
        final TokenBucket bucket = new TokenBucket(limit, windowMs);
        final Entry entry = word(bucket, start);
        final long claimed = BucketGiveBack.claimStart(bucket, entry, () -> start, limit, 0);
        assertNotEquals(BucketGiveBack.NOT_CLAIMED, claimed, "all of it");
        assertEquals(bucket.tryAcquire(entry, () -> start, 1, 0),
            BucketGiveBack.refusal(bucket, entry, () -> start, 1, 0),
            "nothing left, and the refusal says what a check would meet");
        final long half = start + windowMs * MS / 2;
        final long between = limit / 2;
        if (between > 0)
        {
            assertEquals(Floodgate.ADMITTED, bucket.tryAcquire(entry, () -> half, between, 0), "half refilled");
        }
        BucketGiveBack.giveBack(bucket, entry, () -> half, limit, 0, claimed);
        assertEquals(limit - between, bucket.available(BucketWords.tatVolatile(entry), half),
            "as if the claim given back had never been made");
    }

    private static long ceilDiv(final long x, final long y)
    {
        return -Math.floorDiv(-x, y);
    }
}
