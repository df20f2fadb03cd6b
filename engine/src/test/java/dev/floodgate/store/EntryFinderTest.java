package dev.floodgate.store;

import dev.floodgate.Action;
import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.FloodgateReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The lock-free lookup of an existing entry ({@link EntryFinder}): it finds the very memory the locked path
 * resolves, and leaves to the lock every entry it must not hand out (absent, tombstoned, in older units, frozen
 * by a conversion), including while the janitor reaps entries and inserts reuse their chunks.
 */
@Timeout(120)
class EntryFinderTest
{
    private static final long NOW = 1_000_000_000L;
    private static final int SHARDS = 4;

    @TempDir
    Path dir;
    private QuotaTable table;
    private EntryFinder finder;
    private KeyHasher hasher;

    @BeforeEach
    void open()
    {
        table = QuotaTable.open(dir.resolve("finder.map"), 20_000, SHARDS, false, NOW);
        finder = table.lookup().finder();
        hasher = table.hasher();
    }

    @AfterEach
    void close()
    {
        table.close();
    }

    private Resolved resolve(final byte kind, final String id, final long version) throws TableFullException
    {
        return table.lookup().resolve(kind, Action.PUBLISH, id, 10, 60_000, version, 1234, NOW, null);
    }

    private Resolved find(final byte kind, final String id, final long version)
    {
        return finder.find(hasher.key(id, Action.PUBLISH, kind), kind, Action.PUBLISH, version);
    }

    @Test
    void shouldFindTheMemoryTheLockedPathResolved() throws TableFullException
    {
        final byte[] kinds = {Entry.KIND_BUCKET, Entry.KIND_WINDOW, Entry.KIND_BLOCKED};
        for (int i = 0; i < 3_000; i++)
        {
            final byte kind = kinds[i % 3];
            final String id = "user-" + i;
            assertNull(find(kind, id, 1), "nothing to find before the insert");
            final Resolved inserted = resolve(kind, id, 1);
            final Resolved found = find(kind, id, 1);
            assertNotNull(found, id);
            assertEquals(inserted.generation(), found.generation());
            assertEquals(inserted.limit(), found.limit());
            assertEquals(inserted.windowMs(), found.windowMs());
            assertEquals(inserted.version(), found.version());
            assertEquals(id, found.entry().label());
            // the same words, not a copy: a write through one is read through the other
            if (kind == Entry.KIND_BUCKET)
            {
                final long tat = BucketWords.tatVolatile(inserted.entry());
                assertTrue(BucketWords.casTat(inserted.entry(), tat, tat + i));
                assertEquals(tat + i, BucketWords.tatVolatile(found.entry()));
            }
            else
            {
                ShardWords.putWordVolatile(inserted.entry(), SHARDS - 1, i);
                assertEquals(i, ShardWords.wordVolatile(found.entry(), SHARDS - 1));
            }
            assertNull(find(kind == Entry.KIND_WINDOW ? Entry.KIND_BUCKET : Entry.KIND_WINDOW, id, 1),
                "another kind's key is another entry");
        }
    }

    @Test
    void shouldLeaveTombstonedEntriesToTheLockThatRevivesThem() throws TableFullException
    {
        final Resolved inserted = resolve(Entry.KIND_WINDOW, "alice", 1);
        assertEquals(1, table.locked().withWriteLock(hasher.key("alice", Action.PUBLISH, Entry.KIND_WINDOW), value ->
        {
            value.tombstoneVolatile(NOW, value.stateSumVolatile());
            return false;
        }));
        assertNull(find(Entry.KIND_WINDOW, "alice", 1));
        final Resolved revived = resolve(Entry.KIND_WINDOW, "alice", 1);
        assertTrue(revived.generation() != inserted.generation() && revived.generation() != Entry.TOMBSTONE);
        assertEquals(revived.generation(), find(Entry.KIND_WINDOW, "alice", 1).generation());
    }

    @Test
    void shouldLeaveBucketsInOlderUnitsOrFrozenToTheLock() throws TableFullException
    {
        final Resolved bucket = resolve(Entry.KIND_BUCKET, "bob", 3);
        assertNotNull(find(Entry.KIND_BUCKET, "bob", 3));
        assertNotNull(find(Entry.KIND_BUCKET, "bob", 2), "newer units than the caller's are the entry's truth");
        assertNull(find(Entry.KIND_BUCKET, "bob", 4), "older units: the lock converts them");
        final long tat = BucketWords.tatVolatile(bucket.entry());
        assertTrue(BucketWords.casTat(bucket.entry(), tat, BucketWords.FROZEN_TAT));
        assertNull(find(Entry.KIND_BUCKET, "bob", 3), "a conversion is rewriting its units");
        assertTrue(BucketWords.casTat(bucket.entry(), BucketWords.FROZEN_TAT, tat));
        assertNotNull(find(Entry.KIND_BUCKET, "bob", 3));
    }

    /**
     * One thread reaps and re-inserts a key while inserts of other keys reuse its chunks; another finds the key
     * without a lock the whole time. Whatever it finds and still reads at the same generation afterwards is
     * that key's entry: the label the entry was inserted with is the key's identifier.
     */
    @Test
    void shouldNeverHandOutAnotherEntrysMemoryWhileChunksAreReused() throws Exception
    {
        final byte[] key = hasher.key("target", Action.PUBLISH, Entry.KIND_WINDOW);
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicLong finds = new AtomicLong();
        final AtomicReference<String> wrong = new AtomicReference<>();
        final Thread reader = new Thread(() ->
        {
            while (!done.get())
            {
                final Resolved found = finder.find(key, Entry.KIND_WINDOW, Action.PUBLISH, 1);
                if (found != null)
                {
                    final String label = found.entry().label();
                    if (found.entry().isCurrentAcquire(found.generation()) && !label.equals("target"))
                    {
                        wrong.compareAndSet(null, label);
                    }
                    finds.incrementAndGet();
                }
            }
        });
        reader.start();
        try
        {
            // at least 3,000 rounds, and until the reader has found the key 100 times: on a loaded host the reader
            // may not run at all during the first rounds, and a test it never raced proves nothing
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            for (int round = 0; (round < 3_000 || finds.get() < 100) && wrong.get() == null; round++)
            {
                assertTrue(System.nanoTime() - deadline < 0, "the reader found the key only " + finds.get() +
                    " times in 60 s of " + round + " rounds");
                resolve(Entry.KIND_WINDOW, "target", 1);
                reap(key);
                for (int other = 0; other < 3; other++)
                {
                    final String id = "filler-" + round + "-" + other;
                    resolve(Entry.KIND_WINDOW, id, 1);
                    reap(hasher.key(id, Action.PUBLISH, Entry.KIND_WINDOW));
                }
            }
        }
        finally
        {
            done.set(true);
            reader.join();
        }
        assertNull(wrong.get(), "a find handed out the memory of " + wrong.get());
        assertTrue(finds.get() >= 100, "the reader raced the reaper: " + finds.get() + " finds");
    }

    @Test
    void shouldFindLeasesWithBalanceLinesAndOnesWrittenBeforeThem() throws Exception
    {
        final Resolved lined = resolve(Entry.KIND_LEASE, "new", 0);
        assertEquals(SHARDS, LeaseWords.lineCount(lined.entry()), "a new lease has a balance line per shard");
        assertEquals(SHARDS, LeaseWords.lineCount(find(Entry.KIND_LEASE, "new", 0).entry()));
        // what an engine before balance lines inserted: the header and the refill line only
        final byte[] key = hasher.key("old", Action.PUBLISH, Entry.KIND_LEASE);
        final byte[] old = EntryLayout.newValue(Entry.KIND_LEASE, Action.PUBLISH, 10, 60_000, NOW, 99, 0, 1234,
            "old", 0);
        assertEquals(EntryLayout.LEASE_BASE_LENGTH, old.length);
        table.map().put(key, old);
        final Resolved found = find(Entry.KIND_LEASE, "old", 0);
        assertNotNull(found, "found without a lock, at its own length");
        assertEquals(99, found.generation());
        assertEquals(0, LeaseWords.lineCount(found.entry()), "its spends use the central balance");
        assertEquals(1234, LeaseWords.sequenceVolatile(found.entry()), "its words read where that engine wrote them");
        try (FloodgateReader reader = FloodgateReader.open(table.file()))
        {
            assertEquals(2, reader.entries().stream().filter(e -> e.kind() == EntryKind.LEASE).count(),
                "the reader decodes both lengths");
            assertEquals(0, reader.unreadableEntries());
        }
    }

    @Test
    void shouldCopyALeaseWrittenBeforeBalanceLinesUnderTheLockToo() throws Exception
    {
        // a probe copies under the lock what the lock-free finder cannot reach (a chained tier); before, it copied
        // only the new length and saw no lease where an older engine had written one
        final byte[] key = hasher.key("old", Action.PUBLISH, Entry.KIND_LEASE);
        table.map().put(key, EntryLayout.newValue(Entry.KIND_LEASE, Action.PUBLISH, 10, 60_000, NOW, 99, 0, 1234,
            "old", 0));
        final Resolved copied = table.locked().copyIfLive(key, Entry.KIND_LEASE, SHARDS);
        assertNotNull(copied, "the old-length lease is copied");
        assertEquals(EntryLayout.LEASE_BASE_LENGTH, copied.entry().length());
        assertEquals(99, copied.generation());
        assertEquals(1234, LeaseWords.sequenceVolatile(copied.entry()));
        final Resolved lined = resolve(Entry.KIND_LEASE, "new", 0);
        final Resolved copiedNew = table.locked().copyIfLive(hasher.key("new", Action.PUBLISH, Entry.KIND_LEASE),
            Entry.KIND_LEASE, SHARDS);
        assertNotNull(copiedNew);
        assertEquals(lined.entry().length(), copiedNew.entry().length(), "a new lease is copied at its own length");
    }

    /** What the janitor does to an idle entry, at once: tombstone, then remove. */
    private void reap(final byte[] key)
    {
        table.locked().withWriteLock(key, value ->
        {
            value.tombstoneVolatile(NOW, value.stateSumVolatile());
            return false;
        });
        assertEquals(2, table.locked().withWriteLock(key, value -> true));
    }
}
