package dev.floodgate.door;

import dev.floodgate.Ticker;
import dev.floodgate.store.BucketWords;
import dev.floodgate.store.Entry;

import java.util.function.LongSupplier;

/**
 * Converts a bucket's TAT word to a newer policy's units, under the entry's segment update lock, so that a
 * process killed at any instruction leaves the entry in a state the next locker finishes or undoes without
 * forgiving or double-counting debt.
 *
 * <p>The steps, each a single store or compare-and-set:
 * <ol>
 * <li>record the old units and the TAT word in the side record (see {@link BucketWords#conversionTat}) and freeze
 * the word by compare-and-set to {@link TokenBucket#FROZEN}, retrying while checks move it; from then on no
 * check can move it ({@link TokenBucket} treats it as stale), and the side record is the truth;</li>
 * <li>publish a new entry generation (release): a check that resolved before it resolves again;</li>
 * <li>write the new limit, then the new window;</li>
 * <li>store the converted word (never equal to the frozen one: a check that loaded the old word before step 1
 * cannot land on it);</li>
 * <li>record the units version (release).</li>
 * </ol>
 * Freezing comes first so that every state a lock-free reader of the entry ({@code EntryFinder}) can see
 * between the new generation and the new units has the word frozen, which it refuses: whoever holds a
 * generation holds the units its word is in.
 * A locker that finds the word frozen undoes steps 3 and 1 from the side record (units, then the word, last) and
 * converts afresh: killed during the undo, the word is still frozen and the side record intact. Killed after
 * step 4, the units match the word and only the version is behind: the next locker records it (or converts
 * from those units to a still newer policy's). A frozen word is never idle to the janitor
 * ({@link TokenBucket#isFull}), so it is not reaped with its side record.
 *
 * <p>Not guarded: a converter that another process took the lock from while it was stopped, and that then
 * resumes its steps. Lock ownership is the table guard's job.
 */
final class BucketConversion
{
    /** The steps a conversion runs; a test runs fewer to simulate a kill after that many. */
    static final int STEPS = 5;

    private BucketConversion()
    {
    }

    /**
     * Brings an entry's units to {@code version}'s (a no-op when they already are), finishing or undoing a
     * conversion a killed process left.
     *
     * @param value          the entry's value in the file.
     * @param nextGeneration hands out a new entry generation.
     * @param limit          the policy's limit.
     * @param windowMs       the policy's window.
     * @param to             the policy's bucket arithmetic.
     * @param version        the policy's version.
     * @param clock          monotonic time, read once the word is frozen: checks in the old units claim until then,
     *                       and a reading from before one of their claims judged its word with a stale "now" (a
     *                       converter descheduled after it for over a window forgave every token spent: the debt read
     *                       as a wrapped idle word; found by review, {@code ConversionClockTest}).
     * @param steps          {@link #STEPS}; fewer stops there, as a kill would.
     */
    static void run(final Entry value, final LongSupplier nextGeneration, final long limit,
        final long windowMs, final TokenBucket to, final long version, final Ticker clock, final int steps)
    {
        if (BucketWords.tatVolatile(value) == TokenBucket.FROZEN)
        {
            undo(value);
        }
        final long entryVersion = value.unitsVersion() & 0xFFFF_FFFFL;
        if (entryVersion >= version)
        {
            return;
        }
        final long oldLimit = value.limit();
        final long oldWindowMs = value.windowMs();
        if (oldLimit != limit || oldWindowMs != windowMs)
        {
            BucketWords.putConversionUnits(value, packUnits(oldLimit, oldWindowMs));
            long tat;
            do
            {
                tat = BucketWords.tatVolatile(value);
                BucketWords.putConversionTat(value, tat);
            }
            while (!BucketWords.casTat(value, tat, TokenBucket.FROZEN));
            final long nowNanos = clock.nanos(); // after the freeze: no claim lands on the word any more
            if (steps < 2)
            {
                return;
            }
            value.publishGenerationRelease(nextGeneration.getAsLong());
            if (steps < 3)
            {
                return;
            }
            value.putUnits(limit, windowMs);
            if (steps < 4)
            {
                return;
            }
            final long converted = new TokenBucket(oldLimit, oldWindowMs).convert(tat, nowNanos, to);
            // one unit more debt when equal, so an old-units compare-and-set cannot land on the new word
            BucketWords.putTatVolatile(value, converted == tat ? TokenBucket.notFrozen(converted + 1) : converted);
            if (steps < 5)
            {
                return;
            }
        }
        value.publishUnitsVersionRelease((int)version);
    }

    /** Puts back the units and the word a killed conversion recorded; the word last, so it stays frozen till then. */
    private static void undo(final Entry value)
    {
        final long units = BucketWords.conversionUnits(value);
        value.putUnits(BucketWords.unitsLimit(units), BucketWords.unitsWindowMs(units));
        BucketWords.putTatVolatile(value, BucketWords.conversionTat(value));
    }

    private static final int LIMIT_BITS = BucketWords.UNITS_LIMIT_BITS;
    private static final long LIMIT_MASK = (1L << LIMIT_BITS) - 1;

    static
    {
        if (LIMIT_MASK != TokenBucket.MAX_LIMIT)
        {
            throw new ExceptionInInitializerError("the side record must hold every bucket limit");
        }
    }

    /** Limits fit 34 bits ({@link TokenBucket#MAX_LIMIT}) and windows 30 (a week is 6.048e8 ms). */
    static long packUnits(final long limit, final long windowMs)
    {
        if (limit < 1 || limit > LIMIT_MASK || windowMs < 1 || windowMs >>> (64 - LIMIT_BITS) != 0)
        {
            throw new IllegalStateException("bucket units limit=" + limit + " window_ms=" + windowMs +
                ": expected a limit from 1 to " + LIMIT_MASK + " and a window below 2^30 ms");
        }
        return windowMs << LIMIT_BITS | limit;
    }
}
