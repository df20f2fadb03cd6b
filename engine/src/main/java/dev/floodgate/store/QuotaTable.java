package dev.floodgate.store;

import dev.floodgate.FloodgateFileException;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The shared table: one Chronicle Map file of fixed-size keys ({@link KeyHasher}) to 64-byte aligned values
 * ({@link Entry}), plus the file's own record ({@link FileHeader}), as one process maps it for writing: its
 * identity, its parts and its lifetime in this process.
 *
 * <p>Its parts are the ways into the file, all on cold paths (first sight of a key in a process, inserts, resets,
 * the janitor): an entry by name ({@link #lookup}), one entry's locked operations ({@link #locked}), whole-table
 * scans ({@link #scans}). Each takes a segment's guard ({@link TableGuard}) and Chronicle lock, except a lookup of
 * an entry that exists already, which reads it without a lock. Checks on warm keys use the addresses
 * {@linkplain EntryLookup#resolve resolved} there and take no lock. Nothing is allocated while a guard is held (a
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
    private final EntryLookup lookup;
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
        this.lookup = new EntryLookup(file, inode, map, guard, header, hasher, locked, operations);
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

    /** @return an entry by name: a check's cold path and a probe's way in. */
    public EntryLookup lookup()
    {
        return lookup;
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
     * Runs {@code work} (a janitor pass: operations and header touches; an idle lease give-back: writes to entries
     * resolved earlier) as one operation: a closing table waits for it before it leaves its slot, and once closing each
     * operation inside it throws {@link IllegalStateException} and a scan stops at its next segment, so the wait lasts
     * one step. Nothing of it runs after {@link #detach} returns, unless that gave up waiting (and kept the slot).
     *
     * @return what {@code work} returns.
     * @throws IllegalStateException when this table was closed.
     */
    public <T> T asOneOperation(final java.util.function.Supplier<T> work)
    {
        operations.enter();
        try
        {
            return work.get();
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
