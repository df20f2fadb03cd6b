package dev.floodgate.reader;

import dev.floodgate.door.KilledConversion;
import dev.floodgate.door.TokenBucket;
import dev.floodgate.store.BucketWords;
import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryBytes;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.KeyHasher;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The read-only reader meets a bucket frozen by a conversion (to version 2), which finishes right after the reader
 * loaded the frozen word; the next conversion (to version 3) records its side record and freezes the word right
 * after the reader loaded the side record. Before, the reader loaded the units version after the word: it read
 * version 2, and the side record it had loaded (the first conversion's: version 1's units and word) passed its
 * "still frozen, same version" test, so it reported version 2 with version 1's limit (found once in 24 million
 * reads by {@link ReaderConversionRaceTest} in CI; this is that interleaving, driven by hooks on the loads). The
 * version is loaded before the word now, as a probe loads it.
 */
class ReaderRecordOrderTest
{
    private static final long WINDOW_MS = 60_000;
    private static final long NOW = 1_000_000_000_000L;

    /** A value whose load of one word runs a hook once, after the load: another process's steps at that instant. */
    private static final class HookedValue extends UnsafeBuffer
    {
        private final Map<Integer, Runnable> afterLoad = new HashMap<>();

        HookedValue(final byte[] bytes)
        {
            super(bytes);
        }

        @Override
        public long getLongVolatile(final int index)
        {
            final long value = super.getLongVolatile(index);
            final Runnable hook = afterLoad.remove(index);
            if (hook != null)
            {
                hook.run();
            }
            return value;
        }
    }

    @Test
    void shouldNotPairANewVersionWithThePreviousConversionsRecord()
    {
        final HookedValue value = new HookedValue(new byte[EntryLayout.valueLength(Entry.KIND_BUCKET, 1)]);
        final Entry entry = new Entry(value);
        EntryBytes.putKind(value, Entry.KIND_BUCKET);
        entry.publishGenerationVolatile(1);
        entry.putUnits(10, WINDOW_MS);
        entry.publishUnitsVersionRelease(1);
        final long first = new TokenBucket(10, WINDOW_MS).fullWord(NOW) + 1_000_000_000L;
        BucketWords.putTatVolatile(entry, first);
        final long second = new TokenBucket(10, WINDOW_MS).convert(first, NOW, new TokenBucket(20, WINDOW_MS));
        final AtomicLong generations = new AtomicLong(1);
        // the conversion to version 2 has frozen the word, published its generation and written its units
        KilledConversion.convert(entry, generations::incrementAndGet, 20, WINDOW_MS, 2, NOW, 3);

        value.afterLoad.put(EntryBytes.stateOffset(), () ->
        {
            BucketWords.putTatVolatile(entry, second); // it finishes: the converted word, then the version
            entry.publishUnitsVersionRelease(2);
        });
        value.afterLoad.put(EntryBytes.conversionTatOffset(), () ->
            KilledConversion.convert(entry, generations::incrementAndGet, 30, WINDOW_MS, 3, NOW, 1));
        final byte[] key = new byte[KeyHasher.KEY_LENGTH];
        key[0] = 1;
        key[KeyHasher.KIND_INDEX] = Entry.KIND_BUCKET;
        final TableEntry read = TableEntry.decode(key, value, 1);

        final Map<Long, Long> wordOfLimit = Map.of(10L, first, 20L, second);
        final long limitOfVersion = read.unitsVersion() == 1 ? 10 : 20;
        assertEquals(limitOfVersion, read.limit(), "the limit of the version the reader reports: " + read);
        assertEquals(wordOfLimit.get(read.limit()), read.stateWord(), "the word of those units: " + read);
    }
}
