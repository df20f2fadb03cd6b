package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.Resolved;

import java.nio.file.Path;

/**
 * Leaves a bucket's conversion in a table file as a converter killed after {@code steps} of its steps would
 * leave it: the same stores, in the same order, on the entry in the file (the lock a killed converter held is
 * not taken: nothing else writes the entry meanwhile, and a killed holder's lock would be taken over anyway).
 * No child JVM is needed, since what a kill leaves is exactly the stores made before it.
 */
public final class KilledConversion
{
    private KilledConversion()
    {
    }

    /**
     * @param file       the table, already holding the bucket.
     * @param action     the bucket's action.
     * @param identifier the bucket's identifier.
     * @param limit      the new policy's limit.
     * @param windowMs   the new policy's window.
     * @param steps      steps run before the kill, 1 to {@link BucketConversion#STEPS} - 1.
     * @param nowNanos   the converter's clock.
     */
    public static void leave(final Path file, final Action action, final String identifier, final long limit,
        final long windowMs, final int steps, final long nowNanos)
    {
        try (QuotaTable table = QuotaTable.open(file, 1, 1, false, nowNanos))
        {
            final Resolved found = table.lookup().peek(Entry.KIND_BUCKET, action, identifier);
            BucketConversion.run(found.entry(), table.header()::nextGeneration, limit, windowMs,
                new TokenBucket(limit, windowMs), found.version() + 1, () -> nowNanos, steps);
        }
    }

    /** Runs a whole conversion of {@code entry}, as a check that finds its units behind {@code version} does. */
    public static void convert(final Entry entry, final java.util.function.LongSupplier generations, final long limit,
        final long windowMs, final long version, final long nowNanos)
    {
        BucketConversion.run(entry, generations, limit, windowMs, new TokenBucket(limit, windowMs), version, () -> nowNanos,
            BucketConversion.STEPS);
    }

    /** Runs the first {@code steps} steps of a conversion of {@code entry} (1 to {@link BucketConversion#STEPS}). */
    public static void convert(final Entry entry, final java.util.function.LongSupplier generations, final long limit,
        final long windowMs, final long version, final long nowNanos, final int steps)
    {
        BucketConversion.run(entry, generations, limit, windowMs, new TokenBucket(limit, windowMs), version, () -> nowNanos,
            steps);
    }
}
