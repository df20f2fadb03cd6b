package dev.floodgate.reader;

import dev.floodgate.store.BucketWords;
import dev.floodgate.store.Entry;

/**
 * A bucket's word and the units it is in, read without a lock by {@link TableEntry#decode} and by
 * {@link EntryTally}: the units version, then the word before the units (as the lock-free lookup,
 * {@code EntryFinder}, reads word and units), all between two equal loads of the generation. A conversion publishes
 * a new generation before it writes units, and writes them before the converted word, so a word read unfrozen is in
 * the units read after it; a frozen word is replaced by the side record (stored before the freeze; see
 * {@link BucketWords#recordedVolatile}).
 *
 * <p>Not thread-safe (one per decoding caller); its fields are those of the last {@link #read} that returned true.
 * Allocates nothing but a frozen word's side record.
 */
final class BucketRead
{
    private static final int READS = 3;

    long generation;
    int version;
    long tat;
    long limit;
    long windowMs;

    /**
     * @param entry a bucket.
     * @return false when a conversion froze the word under every one of three reads (the entry is then unreadable).
     */
    boolean read(final Entry entry)
    {
        for (int read = 0; read < READS; read++)
        {
            generation = entry.generationVolatile();
            // the version before the word, as a probe loads it: loaded after a frozen word, it could be that of the
            // conversion the word was frozen for, finished meanwhile, and then the side record loaded next, still the
            // one before it, passed recordedVolatile's test once the next conversion froze the word again (found in
            // CI: version 2 reported with version 1's limit)
            version = entry.unitsVersionVolatile();
            tat = BucketWords.tatVolatile(entry);
            limit = entry.limitVolatile();
            windowMs = entry.windowMsVolatile();
            final BucketWords.Recorded recorded = tat != BucketWords.FROZEN_TAT || generation == Entry.TOMBSTONE ?
                null : BucketWords.recordedVolatile(entry, version);
            if (recorded != null)
            {
                tat = recorded.tat();
                limit = recorded.limit();
                windowMs = recorded.windowMs();
            }
            if ((tat != BucketWords.FROZEN_TAT || generation == Entry.TOMBSTONE) &&
                entry.generationVolatile() == generation)
            {
                return true;
            }
        }
        return false;
    }
}
