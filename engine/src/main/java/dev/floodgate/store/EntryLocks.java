package dev.floodgate.store;

import dev.floodgate.Action;
import dev.floodgate.TableBusyException;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.locks.InterProcessLock;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.impl.CompiledMapQueryContext;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.function.ToLongFunction;

/**
 * One entry's operations under its segment's guard ({@link TableGuard}) and a Chronicle lock: reads, writes and
 * removals for resets, the janitor and the facade's counters (a check's own path is {@link EntryLookup#resolve}).
 * Nothing is allocated while a guard is held. Each operation is counted in and out of the table's
 * {@link Operations}, so a closing table waits for it. Thread-safe; Chronicle Map's query contexts are per
 * thread.
 */
public final class EntryLocks
{
    private final Path file;
    private final ChronicleMap<byte[], byte[]> map;
    private final TableGuard guard;
    private final GuardRegion region;
    private final FileHeader header;
    private final KeyHasher hasher;
    private final Operations operations;
    private final ThreadLocal<UnsafeBuffer> scratch = ThreadLocal.withInitial(() -> new UnsafeBuffer(0, 0));
    /** Wraps {@link #scratch}: the entry a locked operation hands its callback. */
    private final ThreadLocal<Entry> scratchEntry = ThreadLocal.withInitial(Entry::new);

    EntryLocks(final Path file, final ChronicleMap<byte[], byte[]> map, final TableGuard guard,
        final FileHeader header, final KeyHasher hasher, final Operations operations)
    {
        this.file = file;
        this.map = map;
        this.guard = guard;
        this.region = guard.region();
        this.header = header;
        this.hasher = hasher;
        this.operations = operations;
    }

    /**
     * Reads an entry under its segment's guard and read lock.
     *
     * @param reader computes the result from the entry's value in the file; must not allocate. It reads a
     *               tombstoned entry too, whose words are what a check's revival brings back (a reset zeroes them).
     * @return the reader's result, or {@code absent} when there is no entry.
     */
    public long readValue(final byte kind, final Action action, final CharSequence identifier,
        final ToLongFunction<Entry> reader, final long absent)
    {
        return read(hasher.key(identifier, action, kind), QuotaTable.TOOL_TIMEOUT_NANOS, reader, absent);
    }

    private long read(final byte[] key, final long timeoutNanos, final ToLongFunction<Entry> reader,
        final long absent)
    {
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
            return reader.applyAsLong(found);
        }
        finally
        {
            exit(segment);
        }
    }

    /**
     * Copies a live entry's value under its segment's guard and read lock, for a reader that must not create
     * the entry (a probe). The copy is made into an array allocated before the guard is taken.
     *
     * @param key    the entry's key.
     * @param kind   the key's kind.
     * @param shards the table's shard count.
     * @return a copy of the live entry, with its generation and units; null when there is none or it is
     * tombstoned.
     * @throws TableBusyException when a live process held the segment for {@link QuotaTable#CHECK_TIMEOUT_NANOS}.
     */
    Resolved copyIfLive(final byte[] key, final byte kind, final int shards)
    {
        final UnsafeBuffer copy = new UnsafeBuffer(new byte[EntryLayout.valueLength(kind, shards)]);
        // a lease an engine before balance lines wrote is shorter (EntryLayout.isValueLength)
        final UnsafeBuffer older = kind != Entry.KIND_LEASE ? copy :
            new UnsafeBuffer(new byte[EntryLayout.LEASE_BASE_LENGTH]);
        // made before the guard is taken
        final ToLongFunction<Entry> copier = found -> found.isTombstonedVolatile() ? 0 :
            found.copyTo(copy) ? 1 : found.copyTo(older) ? 2 : 0;
        final long copied = read(key, QuotaTable.CHECK_TIMEOUT_NANOS, copier, 0);
        if (copied == 0)
        {
            return null;
        }
        final Entry value = new Entry(copied == 1 ? copy : older);
        return new Resolved(value, value.generationVolatile(), value.limit(), value.windowMs(),
            value.unitsVersion() & 0xFFFF_FFFFL);
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
        return withWriteLock(key, action, QuotaTable.TOOL_TIMEOUT_NANOS);
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
                region.addSegmentEntries(segment, -1);
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

    /**
     * @param key a key.
     * @return true when an entry exists under it and is not tombstoned.
     * @throws TableBusyException when a live process held the segment for {@link QuotaTable#CHECK_TIMEOUT_NANOS}.
     */
    public boolean isLive(final byte[] key)
    {
        return withReadLock(key, QuotaTable.CHECK_TIMEOUT_NANOS) == 1;
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
                EntryLayout.GENERATION_OFFSET) != Entry.TOMBSTONE ? 1 : 0;
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

    private void exit(final int segment)
    {
        if (segment >= 0)
        {
            guard.releaseSegment(segment); // after the context closed: its Chronicle lock is released first
        }
        operations.exit();
    }

    /** @return the segment a query context's key belongs to (computed from the key's hash, without a lock). */
    static int segmentOf(final ExternalMapQueryContext<byte[], byte[], ?> c)
    {
        return ((CompiledMapQueryContext<?, ?, ?>)c).segmentIndex();
    }

    static void lock(final Path file, final InterProcessLock lock)
    {
        // The caller's interrupt status is set aside for the lock and kept for the caller: Chronicle's timed tryLock
        // throws at once while it is set, and so an interrupted thread's cold checks were all refused (and counted
        // unreachable) on an idle table (found by review). Under its guard nobody else holds the lock anyway.
        boolean interrupted = Thread.interrupted();
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
            interrupted = true;
            throw new TableBusyException(file + ": interrupted while locking a segment");
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
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
}
