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
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The reader's copy of a bucket races conversions (one converter, every step a store, as fast as it goes): the
 * word it copies must be in the units it copies, and the units those of the version it copies or of the next
 * (the version is recorded last). Found by review: the reader loaded the units, then the version, then the word,
 * so a conversion between them paired old units with a converted word (and a frozen word was read as a word).
 */
@Timeout(60)
class ReaderConversionRaceTest
{
    private static final long WINDOW_MS = 60_000;
    private static final long NOW = 1_000_000_000_000L;

    private static long limitOf(final long version)
    {
        return 10 + 10 * (version % 3);
    }

    @Test
    void shouldCopyABucketsWordOnlyWithTheUnitsItIsIn() throws Exception
    {
        final UnsafeBuffer value = new UnsafeBuffer(new byte[EntryLayout.valueLength(Entry.KIND_BUCKET, 1)]);
        final Entry entry = new Entry(value);
        EntryBytes.putKind(value, Entry.KIND_BUCKET);
        entry.publishGenerationVolatile(1);
        entry.putUnits(limitOf(1), WINDOW_MS);
        entry.publishUnitsVersionRelease(1);
        // some debt, which every conversion keeps in tokens
        final long first = new TokenBucket(limitOf(1), WINDOW_MS).fullWord(NOW) + 1_000_000_000L;
        BucketWords.putTatVolatile(entry, first);
        // each word the entry held, with every limit of the units it held it in (a word may recur in other units)
        final Map<Long, Set<Long>> unitsOfWord = new ConcurrentHashMap<>();
        unitsOfWord.computeIfAbsent(first, w -> ConcurrentHashMap.newKeySet()).add(limitOf(1));
        final byte[] key = new byte[KeyHasher.KEY_LENGTH];
        key[0] = 1;
        key[KeyHasher.KIND_INDEX] = Entry.KIND_BUCKET;

        final AtomicBoolean done = new AtomicBoolean();
        final AtomicLong conversions = new AtomicLong();
        final AtomicLong generations = new AtomicLong(1);
        final Thread converter = new Thread(() ->
        {
            for (long version = 2; !done.get(); version++)
            {
                KilledConversion.convert(entry, generations::incrementAndGet, limitOf(version), WINDOW_MS, version,
                    NOW);
                unitsOfWord.computeIfAbsent(BucketWords.tatVolatile(entry), w -> ConcurrentHashMap.newKeySet())
                    .add(limitOf(version));
                conversions.lazySet(version);
            }
        });
        converter.start();
        final List<TableEntry> samples = new ArrayList<>();
        long reads = 0;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        try
        {
            while (System.nanoTime() < deadline && samples.size() < 100_000)
            {
                final TableEntry e = TableEntry.decode(key, value, 1);
                if (e != TableEntry.UNREADABLE &&
                    !unitsOfWord.getOrDefault(e.stateWord(), Set.of()).contains(e.limit()))
                {
                    samples.add(e); // the word not yet recorded (converted under the read): judged afterwards
                }
                reads++;
            }
        }
        finally
        {
            done.set(true);
            converter.join();
        }
        long torn = 0;
        String example = "";
        for (final TableEntry e : samples)
        {
            final boolean versionFits = e.limit() == limitOf(e.unitsVersion()) ||
                e.limit() == limitOf(e.unitsVersion() + 1);
            if (!versionFits || !unitsOfWord.getOrDefault(e.stateWord(), Set.of()).contains(e.limit()))
            {
                torn++;
                example = e.toString();
            }
        }
        assertEquals(0, torn, torn + " torn copies of " + reads + " reads, " + conversions + " conversions: " +
            example);
        assertTrue(reads > 1_000 && conversions.get() > 1_000, "the race ran: " + conversions + " conversions, " +
            reads + " reads");
    }
}
