package dev.floodgate.store;

import dev.floodgate.TableBusyException;
import dev.floodgate.FloodgateFileException;
import dev.floodgate.Action;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.hash.locks.InterProcessLock;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.impl.CompiledMapQueryContext;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The shared table: one Chronicle Map file of fixed-size keys ({@link KeyHasher}) to 64-byte aligned values
 * ({@link Entry}), plus the file's own record ({@link FileHeader}), as one process maps it for writing.
 *
 * <p>Every method here belongs on a cold path (first sight of a key in a process, inserts, resets, the janitor)
 * and takes a segment's guard ({@link TableGuard}) and Chronicle lock, except a {@link #resolve} of an entry that
 * exists already, which reads it without a lock. Checks on warm keys use the addresses
 * this class {@linkplain #resolve resolves} and take no lock. Nothing is allocated while a guard is held (a
 * garbage collection there would hold up every process's cold checks on that segment). Thread-safe; Chronicle
 * Map's query contexts are per thread.
 *
 * <p>Opening the table claims this process's slot in the table's lock file ({@link SlotLocks}): the slot's owner
 * word is what every guard taken through this table records, and the kernel drops the slot when the process
 * dies. Closing releases the slot.
 */
public final class QuotaTable implements AutoCloseable
{
    /** How long a check's cold path waits for a busy segment before it answers by its unreachable rule. */
    public static final long CHECK_TIMEOUT_NANOS = 50_000_000L;
    /** How long resets, the janitor and publishers wait for a guard. */
    public static final long TOOL_TIMEOUT_NANOS = 2_000_000_000L;

    private final Path file;
    private final ChronicleMap<byte[], byte[]> map;
    private final TableGuard guard;
    private final FileHeader header;
    private final KeyHasher hasher;
    private final TableScans scans;
    private final EntryResolver resolver;
    private final EntryFinder finder;
    private final SlotLocks locks;
    private final long owner;
    private final int shards;
    private final long capacity;
    private final ThreadLocal<UnsafeBuffer> scratch = ThreadLocal.withInitial(() -> new UnsafeBuffer(0, 0));
    /** Wraps {@link #scratch}: the entry a locked operation hands its callback. */
    private final ThreadLocal<Entry> scratchEntry = ThreadLocal.withInitial(Entry::new);
    private final Operations operations;
    private boolean unmapped; // guarded by this

    QuotaTable(final Path file, final ChronicleMap<byte[], byte[]> map, final TableGuard guard,
        final FileHeader header, final SlotLocks locks, final long owner)
    {
        this.file = file;
        this.map = map;
        this.guard = guard;
        this.header = header;
        this.locks = locks;
        this.owner = owner;
        this.operations = new Operations(file);
        this.hasher = new KeyHasher(header.secret0(), header.secret1());
        this.scans = new TableScans(file, map, guard, header);
        this.shards = header.shards();
        this.capacity = header.capacity();
        this.resolver = new EntryResolver(file, map, guard, header, capacity, shards);
        this.finder = new EntryFinder((VanillaChronicleHash<?, ?, ?, ?>)map, shards);
    }

    /**
     * Maps the table at {@code file}, creating it when absent and replacing it when it was written under a
     * previous boot of the host, and claims a process slot in its lock file.
     *
     * @param file           the table's path.
     * @param capacity       entries to size a new file for.
     * @param shards         shard count of a new file.
     * @param groupReadable  whether a new file is readable by the owner's group (otherwise 0600).
     * @param nowNanos       the monotonic time, recorded in a new file.
     * @return the open table.
     * @throws FloodgateFileException naming the file and the problem.
     */
    public static QuotaTable open(
        final Path file, final long capacity, final int shards, final boolean groupReadable, final long nowNanos)
    {
        return TableOpener.open(file, capacity, shards, groupReadable, nowNanos);
    }

    /**
     * @param kind       an entry kind.
     * @param action     an action.
     * @param identifier an identifier.
     * @return the segment whose guard covers that entry (for tools and tests that hold or watch one segment).
     */
    public int segmentOf(final byte kind, final Action action, final CharSequence identifier)
    {
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(hasher.key(identifier, action, kind)))
        {
            return segmentOf(c);
        }
    }

    /** @return the segment of the file's own record. */
    public int headerSegment()
    {
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(TableCreator.HEADER_KEY))
        {
            return segmentOf(c);
        }
    }

    /** @return the segment a query context's key belongs to (computed from the key's hash, without a lock). */
    static int segmentOf(final ExternalMapQueryContext<byte[], byte[], ?> c)
    {
        return ((CompiledMapQueryContext<?, ?, ?>)c).segmentIndex();
    }

    static void lock(final Path file, final InterProcessLock lock)
    {
        try
        {
            // Under its guard nobody else holds this segment's Chronicle lock; a wait here means an unforeseen
            // state, which must surface as an error, never as Chronicle's 60 s spin.
            if (!lock.tryLock(1, TimeUnit.SECONDS))
            {
                throw new TableBusyException(file + ": a segment lock stayed held under its guard");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new TableBusyException(file + ": interrupted while locking a segment");
        }
    }

    static TableBusyException busy(final Path file, final String what, final long timeoutNanos)
    {
        return new TableBusyException(file + ": a live process held the guard of " + what + " for " +
            TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
    }

    static UnsafeBuffer wrap(final Data<byte[]> value, final UnsafeBuffer into)
    {
        into.wrap(value.bytes().addressForRead(value.offset()), (int)value.size());
        return into;
    }

    /** @return the lock-free lookup {@link #resolve} tries first (for tests). */
    EntryFinder finder()
    {
        return finder;
    }

    /** Unmaps a table that was never handed out (the opener found it stale); its slot stays claimed. */
    void unmapUnopened()
    {
        map.close();
    }

    /** @return the file. */
    public Path file()
    {
        return file;
    }

    /** @return the file's record. */
    public FileHeader header()
    {
        return header;
    }

    /** @return the shard count fixed in the file. */
    public int shards()
    {
        return shards;
    }

    /** @return the capacity fixed in the file. */
    public long capacity()
    {
        return capacity;
    }

    /** @return the key function of this file. */
    public KeyHasher hasher()
    {
        return hasher;
    }

    /** @return the table's lock file, through which this process holds its slot. */
    public SlotLocks locks()
    {
        return locks;
    }

    /** @return this process's owner word in the table (slot and token), recorded by every guard it takes. */
    public long owner()
    {
        return owner;
    }

    /**
     * Finds an entry: a live one already in the caller's units without a lock ({@link EntryFinder}); otherwise
     * under its segment's guard, inserting it when absent, reviving it when the janitor has tombstoned it and
     * running {@code upgrade}.
     *
     * @param kind         the entry kind.
     * @param action       the action.
     * @param identifier   the identifier.
     * @param limit        the limit a new entry records.
     * @param windowMs     the window a new entry records.
     * @param version      the policy version a new entry's units belong to; a bucket found in older units goes
     *                     through the lock and {@code upgrade}.
     * @param initialState the state word of a new entry.
     * @param nowNanos     the monotonic time.
     * @param upgrade      run on an existing entry under the update lock (may convert its units); or null.
     * @return the located entry.
     * @throws TableFullException when the table cannot take a new entry.
     * @throws TableBusyException when a live process held the segment (or tier allocation) for
     *                            {@link #CHECK_TIMEOUT_NANOS}.
     */
    public Resolved resolve(
        final byte kind,
        final Action action,
        final CharSequence identifier,
        final long limit,
        final long windowMs,
        final long version,
        final long initialState,
        final long nowNanos,
        final Upgrade upgrade) throws TableFullException
    {
        final byte[] key = hasher.key(identifier, action, kind);
        operations.enter();
        try
        {
            final Resolved found = finder.find(key, kind, action, version);
            return found != null ? found : resolver.resolve(key, kind, action, identifier, limit, windowMs, version,
                initialState, nowNanos, upgrade);
        }
        finally
        {
            operations.exit();
        }
    }

    /**
     * Reads an entry under its segment's guard and read lock.
     *
     * @param reader computes the result from the entry's value in the file; must not allocate.
     * @return the reader's result, or {@code absent} when there is no live entry.
     */
    public long readValue(final byte kind, final Action action, final CharSequence identifier,
        final java.util.function.ToLongFunction<Entry> reader, final long absent)
    {
        final long timeoutNanos = TOOL_TIMEOUT_NANOS;
        final byte[] key = hasher.key(identifier, action, kind);
        final UnsafeBuffer buffer = scratch.get();
        int segment = -1;
        operations.enter();
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key))
        {
            segment = enter(c, timeoutNanos);
            lock(file, c.readLock());
            final MapEntry<byte[], byte[]> entry = c.entry();
            if (entry == null)
            {
                return absent;
            }
            final Entry found = scratchEntry.get().wrap(wrap(entry.value(), buffer));
            return found.isTombstonedVolatile() ? absent : reader.applyAsLong(found);
        }
        finally
        {
            exit(segment);
        }
    }

    private int enter(final ExternalMapQueryContext<byte[], byte[], ?> c, final long timeoutNanos)
    {
        final int s = segmentOf(c);
        if (!guard.acquireSegment(s, timeoutNanos))
        {
            throw busy(file, "segment " + s, timeoutNanos);
        }
        return s;
    }

    /** Run by {@link #resolve} on a located, live entry under its segment's update lock. */
    @FunctionalInterface
    public interface Upgrade
    {
        /**
         * @param value  the entry's value in the file.
         * @param header the file's record (for a new generation).
         */
        void apply(Entry value, FileHeader header);
    }

    /** Called with an entry's value under its segment's write lock. */
    @FunctionalInterface
    public interface WriteLockedAction
    {
        /**
         * @param value the entry's value in the file.
         * @return true to remove the entry.
         */
        boolean apply(Entry value);
    }

    /**
     * Runs {@code action} on the entry under its segment's guard and write lock, which excludes every locked
     * reader and writer in every process (but not lock-free checks).
     *
     * @param key    the entry's key.
     * @param action what to do.
     * @return 0 when absent, 1 when kept, 2 when removed.
     */
    public int withWriteLock(final byte[] key, final WriteLockedAction action)
    {
        return withWriteLock(key, action, TOOL_TIMEOUT_NANOS);
    }

    /**
     * As {@link #withWriteLock(byte[], WriteLockedAction)}, waiting at most {@code timeoutNanos} for the segment.
     *
     * @throws TableBusyException when a live process held the segment that long.
     */
    public int withWriteLock(final byte[] key, final WriteLockedAction action, final long timeoutNanos)
    {
        final UnsafeBuffer buffer = scratch.get();
        int segment = -1;
        operations.enter();
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key))
        {
            segment = enter(c, timeoutNanos);
            lock(file, c.writeLock());
            final MapEntry<byte[], byte[]> entry = c.entry();
            if (entry == null)
            {
                return 0;
            }
            if (action.apply(scratchEntry.get().wrap(wrap(entry.value(), buffer))))
            {
                c.remove(entry);
                guard.addSegmentEntries(segment, -1);
                header.addCounter(FileHeader.ENTRY_COUNT_OFFSET, -1);
                return 2;
            }
            return 1;
        }
        finally
        {
            exit(segment);
        }
    }

    /** Called with a copy of each quota entry. */
    @FunctionalInterface
    public interface EntryVisitor
    {
        /**
         * @param key   the entry's key (a fresh array).
         * @param value a copy of the entry's value, taken under the segment's guard.
         */
        void visit(byte[] key, UnsafeBuffer value);
    }

    /**
     * Visits a copy of every quota entry (not the file's own record), one segment at a time: each segment is
     * copied under its guard, then visited with no guard held.
     *
     * @param visitor receives each entry.
     */
    public void forEachEntry(final EntryVisitor visitor)
    {
        operations.enter();
        try
        {
            scans.forEachEntry(visitor);
        }
        finally
        {
            operations.exit();
        }
    }

    /** Called with each quota entry in place, under its segment's guard and update lock. */
    @FunctionalInterface
    public interface InPlaceVisitor
    {
        /**
         * Must be quick, must not allocate per entry and must not call back into the table. The buffers are
         * reused for the next entry: copy what must outlive the call.
         *
         * @param key   the entry's 16 key bytes, in the file.
         * @param value the entry's value, in the file.
         */
        void visit(UnsafeBuffer key, Entry value);
    }

    /**
     * Visits every quota entry in place, one segment at a time under its guard (the janitor's scan: it runs
     * often and must not make garbage). Also keeps the file's entry count exact (see {@link TableScans}). A
     * segment whose guard a live process holds for {@link #CHECK_TIMEOUT_NANOS} (stopped inside an operation)
     * is skipped: a stopped process holds up what it holds, not the whole scan.
     *
     * @param visitor receives each entry.
     * @return the number of segments skipped.
     */
    public int forEachEntryInPlace(final InPlaceVisitor visitor)
    {
        operations.enter();
        try
        {
            return scans.forEachEntryInPlace(visitor);
        }
        finally
        {
            operations.exit();
        }
    }

    /**
     * @param key a key.
     * @return true when an entry exists under it and is not tombstoned.
     * @throws TableBusyException when a live process held the segment for {@link #CHECK_TIMEOUT_NANOS}.
     */
    public boolean isLive(final byte[] key)
    {
        return withReadLock(key, CHECK_TIMEOUT_NANOS) == 1;
    }

    private int withReadLock(final byte[] key, final long timeoutNanos)
    {
        int segment = -1;
        operations.enter();
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key))
        {
            segment = enter(c, timeoutNanos);
            lock(file, c.readLock());
            final MapEntry<byte[], byte[]> entry = c.entry();
            return entry != null && entry.value().bytes().readVolatileLong(entry.value().offset() +
                Entry.GENERATION_OFFSET) != Entry.TOMBSTONE ? 1 : 0;
        }
        finally
        {
            exit(segment);
        }
    }

    /** @return the guards every Chronicle Map lock of this file is taken under. */
    public TableGuard guard()
    {
        return guard;
    }

    /** @return live and tombstoned entries per segment, for tools and the spread test. */
    public long[] segmentCounts()
    {
        operations.enter();
        try
        {
            return scans.segmentCounts();
        }
        finally
        {
            operations.exit();
        }
    }

    /**
     * Runs {@code publish} under the policy guard, so publishers in every process serialise.
     *
     * @param publish what to do under the guard.
     * @return its result.
     * @throws TableBusyException when another live process held the guard for {@link #TOOL_TIMEOUT_NANOS}.
     */
    public long underPolicyGuard(final java.util.function.LongSupplier publish)
    {
        operations.enter();
        try
        {
            if (!guard.acquirePolicy(TOOL_TIMEOUT_NANOS))
            {
                throw busy(file, "the policy", TOOL_TIMEOUT_NANOS);
            }
            try
            {
                return publish.getAsLong();
            }
            finally
            {
                guard.releasePolicy();
            }
        }
        finally
        {
            operations.exit();
        }
    }

    private void exit(final int segment)
    {
        if (segment >= 0)
        {
            guard.releaseSegment(segment); // after the context closed: its Chronicle lock is released first
        }
        operations.exit();
    }

    /** @return the file's size in bytes. */
    public long fileSize()
    {
        try
        {
            return Files.size(file);
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    /**
     * Ends every guard-taking operation: new ones throw {@link IllegalStateException}, the ones in flight are
     * waited for (each is bounded by its guard timeout), then this process's slot is released, so no guard this
     * process might still hold can outlive its slot (another process would take it over while we are inside).
     * The file stays mapped: addresses resolved earlier stay valid until {@link #close}. Idempotent.
     */
    public void detach()
    {
        if (operations.endAndAwait(4 * TOOL_TIMEOUT_NANOS))
        {
            locks.unclaimSlot(owner);
            locks.release();
        }
    }

    /**
     * Detaches (see {@link #detach}) and unmaps the file. Addresses resolved from this table must not be used
     * afterwards: call it only when no check can be running (a {@code Floodgate} defers it until it is
     * unreachable). Idempotent.
     */
    @Override
    public void close()
    {
        detach();
        synchronized (this)
        {
            if (!unmapped)
            {
                unmapped = true;
                map.close();
            }
        }
    }
}
