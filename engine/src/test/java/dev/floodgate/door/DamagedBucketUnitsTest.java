package dev.floodgate.door;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Review (review-bucket): {@link TokenBucket#fits} screens units read from the file (an entry's, by the janitor, a
 * check's slot and the readers; a policy record's) before any arithmetic is made of them, and answers false for
 * units a damaged entry may hold, which {@link EntryArithmetic#bucket} then reports as unreadable. Its span test
 * multiplied the window's nanoseconds by the scale unchecked: a window of about 4 * 10^12 ms with a limit of 3
 * wrapped to a negative span that "fits", and the {@code TokenBucket} made of it threw {@link ArithmeticException}
 * (a janitor pass, a check or {@code floodgate dump} of that entry, every time).
 */
class DamagedBucketUnitsTest
{
    private static final long WINDOW_MS = 4_000_000_000_001L; // * 10^6 * 3 wraps a long

    @Test
    void shouldNotFitUnitsWhoseSpanOverflows()
    {
        assertFalse(TokenBucket.fits(3, WINDOW_MS));
    }

    @Test
    void shouldReadADamagedEntrysUnitsAsUnreadable()
    {
        assertNull(EntryArithmetic.bucket(3, WINDOW_MS, 0, 0, null, 1_000_000_000L));
    }
}
