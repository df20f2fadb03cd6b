package dev.floodgate.store;

import static dev.floodgate.store.EntryLayout.CONVERSION_TAT_OFFSET;
import static dev.floodgate.store.EntryLayout.CONVERSION_UNITS_OFFSET;
import static dev.floodgate.store.EntryLayout.STATE_OFFSET;

/**
 * A bucket entry's own words, over an {@link Entry}: the TAT word (line 0, beside the generation every check
 * loads) and the conversion side record that {@code BucketConversion} keeps under the update lock (in the
 * tombstone record's place, which a live bucket does not use: see {@link EntryLayout}). The one owner of these
 * words; the header, the generation and the lock-free write protocol are {@link Entry}'s, and a {@code cas...}
 * here is a lock-free write only under that protocol: load the word, pass {@link Entry#isCurrentAcquire}, then
 * compare-and-set against the word loaded.
 *
 * <p>A final class of static methods over the entry, as Aeron's {@code LogBufferDescriptor} is over its buffer,
 * rather than a flyweight of its own: a check reaches these words by the same one load of the entry's buffer as
 * the header's, with no object per entry and no virtual call on the warm path. Stateless.
 */
public final class BucketWords
{
    /** The TAT word while a conversion rewrites its units: no check moves it (see {@code BucketConversion}). */
    public static final long FROZEN_TAT = Long.MIN_VALUE;

    /** The side record's units are {@code window ms << UNITS_LIMIT_BITS | limit}. */
    public static final int UNITS_LIMIT_BITS = 34;

    private BucketWords()
    {
    }

    /** @return the bucket's TAT word, volatile. */
    public static long tatVolatile(final Entry entry)
    {
        return entry.value.getLongVolatile(STATE_OFFSET);
    }

    /** @return true while a conversion holds the TAT word frozen ({@link #FROZEN_TAT}; volatile load). */
    public static boolean isFrozenVolatile(final Entry entry)
    {
        return entry.value.getLongVolatile(STATE_OFFSET) == FROZEN_TAT;
    }

    /** @return true when the TAT word was {@code expected} and is now {@code next}: see the class comment. */
    public static boolean casTat(final Entry entry, final long expected, final long next)
    {
        return entry.value.compareAndSetLong(STATE_OFFSET, expected, next);
    }

    /** Stores the TAT word, volatile; under the segment's lock (a conversion, a reset). */
    public static void putTatVolatile(final Entry entry, final long tat)
    {
        entry.value.putLongVolatile(STATE_OFFSET, tat);
    }

    /** @return the conversion side record's frozen TAT word; under the update lock (else {@link #recordedVolatile}). */
    public static long conversionTat(final Entry entry)
    {
        return entry.value.getLong(CONVERSION_TAT_OFFSET);
    }

    /** @return the conversion side record's units, {@code window ms << 34 | limit}; under the update lock. */
    public static long conversionUnits(final Entry entry)
    {
        return entry.value.getLong(CONVERSION_UNITS_OFFSET);
    }

    /** @return the limit of side record units {@code units} (the units its frozen TAT word is in). */
    public static long unitsLimit(final long units)
    {
        return units & ((1L << UNITS_LIMIT_BITS) - 1);
    }

    /** @return the window of side record units {@code units}. */
    public static long unitsWindowMs(final long units)
    {
        return units >>> UNITS_LIMIT_BITS;
    }

    /**
     * A frozen word's side record, as a check that finds the word frozen puts it back before converting.
     *
     * @param limit    the limit of the units the word is in.
     * @param windowMs their window.
     * @param tat      the word.
     */
    public record Recorded(long limit, long windowMs, long tat)
    {
    }

    /**
     * Reads the side record without the lock, for a reader that found the word frozen (a probe, the read-only
     * reader): volatile loads, then the word and the units version again. A conversion that ran on meanwhile
     * and began the next one rewrites the record while the word reads frozen again, but only after it stored the
     * converted word and a newer version, so the record is whole when the version is unchanged and the word is
     * still frozen.
     *
     * @param entry   the entry.
     * @param version the entry's units version, loaded before the frozen word (loaded after it, it may be that of
     *                the conversion the word was frozen for, finished since, while the record read is still the one
     *                before it): the record is whole when no conversion recorded a version since.
     * @return the record, or null when the word is not frozen or a conversion moved on under the read.
     */
    public static Recorded recordedVolatile(final Entry entry, final int version)
    {
        final long units = entry.value.getLongVolatile(CONVERSION_UNITS_OFFSET);
        final long tat = entry.value.getLongVolatile(CONVERSION_TAT_OFFSET);
        return isFrozenVolatile(entry) && entry.unitsVersionVolatile() == version ?
            new Recorded(unitsLimit(units), unitsWindowMs(units), tat) : null;
    }

    /** Stores the conversion side record's frozen TAT word, plain; under the update lock. */
    public static void putConversionTat(final Entry entry, final long tat)
    {
        entry.value.putLong(CONVERSION_TAT_OFFSET, tat);
    }

    /** Stores the conversion side record's units, plain; under the update lock. */
    public static void putConversionUnits(final Entry entry, final long units)
    {
        entry.value.putLong(CONVERSION_UNITS_OFFSET, units);
    }
}
