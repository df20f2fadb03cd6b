package dev.floodgate.store;

import dev.floodgate.Action;
import dev.floodgate.TableBusyException;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;

import java.nio.file.Path;

/**
 * An entry of the table by its name (kind, action, identifier): its key under the file's secret
 * ({@link KeyHasher}), then a live entry already in the caller's units without a lock ({@link EntryFinder}),
 * otherwise under its segment's guard and a Chronicle lock, found or made ({@link EntryResolver}) or copied
 * ({@link EntryLocks}). The way in of a check's cold path and of a probe; each lookup is an operation of its table
 * ({@link Operations}), so a detached table refuses it. Thread-safe.
 */
public final class EntryLookup
{
    private final ChronicleMap<byte[], byte[]> map;
    private final KeyHasher hasher;
    private final EntryLocks locked;
    private final EntryResolver resolver;
    private final EntryFinder finder;
    private final Operations operations;
    private final int shards;

    /** @param inode the mapped file's inode (a table removed from under this process may be another at the path). */
    EntryLookup(final Path file, final Object inode, final ChronicleMap<byte[], byte[]> map, final TableGuard guard,
        final FileHeader header, final KeyHasher hasher, final EntryLocks locked, final Operations operations)
    {
        this.map = map;
        this.hasher = hasher;
        this.locked = locked;
        this.operations = operations;
        this.shards = header.shards();
        this.resolver = new EntryResolver(file, inode, map, guard, header, header.capacity(), shards);
        this.finder = new EntryFinder((VanillaChronicleHash<?, ?, ?, ?>)map, shards);
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
            return EntryLocks.segmentOf(c);
        }
    }

    /** @return the segment of the file's own record. */
    public int headerSegment()
    {
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(TableCreator.HEADER_KEY))
        {
            return EntryLocks.segmentOf(c);
        }
    }

    /**
     * Looks an entry up without creating it: live, read in place without a lock when it can be, otherwise a copy
     * taken under its segment's read lock.
     *
     * @param kind       the entry kind.
     * @param action     the action.
     * @param identifier the identifier.
     * @return the entry, in whatever units it has; null when there is none (or it is tombstoned).
     * @throws TableBusyException when a live process held its segment for {@link QuotaTable#CHECK_TIMEOUT_NANOS}.
     */
    public Resolved peek(final byte kind, final Action action, final CharSequence identifier)
    {
        final byte[] key = hasher.key(identifier, action, kind);
        operations.enter();
        try
        {
            final Resolved found = finder.find(key, kind, action, 0);
            return found != null ? found : locked.copyIfLive(key, kind, shards);
        }
        finally
        {
            operations.exit();
        }
    }

    /** @return the lock-free lookup {@link #resolve} tries first (for tests). */
    EntryFinder finder()
    {
        return finder;
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
     * @param initialState the state word of a new entry: a bucket's TAT, a lease's first sequence number.
     * @param nowNanos     the monotonic time.
     * @param upgrade      run on an existing entry under the update lock (may convert its units); or null.
     * @return the located entry.
     * @throws TableFullException when the table cannot take a new entry.
     * @throws TableBusyException when a live process held the segment (or tier allocation) for
     *                            {@link QuotaTable#CHECK_TIMEOUT_NANOS}.
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
        final EntryUpgrade upgrade) throws TableFullException
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
}
