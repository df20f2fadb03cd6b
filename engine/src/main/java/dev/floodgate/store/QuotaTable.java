package dev.floodgate.store;

import dev.floodgate.TableBusyException;
import dev.floodgate.FloodgateFileException;
import dev.floodgate.Action;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

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
    private final EntryLocks locked;
    private final EntryResolver resolver;
    private final EntryFinder finder;
    private final SlotLocks locks;
    private final long owner;
    private final int shards;
    private final long capacity;
    private final Operations operations;
    private final Object inode;
    private boolean unmapped; // guarded by this

    QuotaTable(final Path file, final ChronicleMap<byte[], byte[]> map, final TableGuard guard,
        final FileHeader header, final SlotLocks locks, final long owner, final Object inode)
    {
        this.file = file;
        this.inode = inode;
        this.map = map;
        this.guard = guard;
        this.header = header;
        this.locks = locks;
        this.owner = owner;
        this.operations = new Operations(file);
        this.hasher = new KeyHasher(header.secret0(), header.secret1());
        this.scans = new TableScans(file, map, guard, header, operations);
        this.locked = new EntryLocks(file, map, guard, header, hasher, operations);
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
     * @throws TableBusyException when a live process held its segment for {@link #CHECK_TIMEOUT_NANOS}.
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

    /** @return the map, to write a value as another engine version would. For tests. */
    ChronicleMap<byte[], byte[]> map()
    {
        return map;
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
     * @param initialState the state word of a new entry: a bucket's TAT, a lease's first sequence number.
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

    /** @return one entry's operations under its segment's guard and a Chronicle lock. */
    public EntryLocks locked()
    {
        return locked;
    }

    /** @return whole-table scans, one segment at a time under its guard. */
    public TableScans scans()
    {
        return scans;
    }

    /**
     * Checks, once this process registered, that the table still pairs with this process's lock file
     * ({@link LockFilePairing}).
     *
     * @throws FloodgateFileException when the lock file was made again beside the table and another process
     * attached with it.
     */
    public void confirmLockFile()
    {
        LockFilePairing.confirm(this);
    }

    /** @return the guards every Chronicle Map lock of this file is taken under. */
    public TableGuard guard()
    {
        return guard;
    }

    /**
     * Takes the node's policy guard as an operation of this table: a closing table waits for the publish before it
     * leaves its slot, which a live holder's guard must never outlive (NOTES.md, "Close").
     *
     * @return false when a live process held it for {@code timeoutNanos} (nothing held).
     * @throws IllegalStateException when this table was closed.
     */
    public boolean acquirePolicyGuard(final long timeoutNanos)
    {
        operations.enter();
        if (guard.acquirePolicy(timeoutNanos))
        {
            return true;
        }
        operations.exit();
        return false;
    }

    /** Releases what {@link #acquirePolicyGuard} took. */
    public void releasePolicyGuard()
    {
        try
        {
            guard.releasePolicy();
        }
        finally
        {
            operations.exit();
        }
    }

    /**
     * @return whether the file at this table's path is still the one mapped here: a table removed from under its
     * processes (an operator's rm, systemd's RemoveIPC) stays mapped in them, and what is read by path is then
     * another file or none.
     */
    public boolean atItsPath()
    {
        try
        {
            return inode.equals(Files.readAttributes(file, "unix:ino").get("ino"));
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            return false;
        }
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

    /** Maps every page of the table's first tiers into this process now: see {@link PreTouch}. */
    public void preTouch()
    {
        PreTouch.touch((VanillaChronicleHash<?, ?, ?, ?>)map);
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
