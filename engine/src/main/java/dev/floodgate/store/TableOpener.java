package dev.floodgate.store;

import dev.floodgate.FloodgateFileException;
import dev.floodgate.TableBusyException;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Opening a table for writing: creating it when absent, replacing it when it was written under a previous
 * boot, claiming this process's slot in the lock file, mapping it and validating what was mapped (size,
 * header, magic, format version) before any {@link QuotaTable} is handed out. Stateless.
 */
final class TableOpener
{
    private TableOpener()
    {
    }

    /** See {@link QuotaTable#open}. */
    static QuotaTable open(
        final Path file, final long capacity, final int shards, final boolean groupReadable, final long nowNanos)
    {
        // The caller's interrupt status (a pooled thread after a cancelled task) is set aside for the open and given
        // back: FileChannel's size, map and write are interruptible, and a set status closed the channels under
        // them, so the open failed with ClosedByInterruptException. An interrupt during the open still ends it.
        final boolean interrupted = Thread.interrupted();
        try
        {
            return openOrCreate(file, capacity, shards, groupReadable, nowNanos);
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static QuotaTable openOrCreate(
        final Path file, final long capacity, final int shards, final boolean groupReadable, final long nowNanos)
    {
        Objects.requireNonNull(file, "file");
        if (Files.exists(file))
        {
            FileCheck.check(file, true); // before the lock file is made beside it: a bad path gets no litter
        }
        else
        {
            DirectoryAccess.makeDirectory(file, groupReadable); // the lock file goes there first: it names creators
        }
        final SlotLocks locks = SlotLocks.acquire(file, groupReadable);
        final long owner;
        try
        {
            CreatorTemps.removeDeadTemps(file, locks.building());
            // before this process takes a slot: a creator is not attached
            createUnlessAttached(file, capacity, shards, groupReadable, nowNanos, locks, 0);
            owner = locks.claimSlot();
        }
        catch (final RuntimeException | Error ex)
        {
            locks.release();
            throw ex;
        }
        try
        {
            return open(file, capacity, shards, groupReadable, nowNanos, locks, owner);
        }
        catch (final RuntimeException | Error ex)
        {
            locks.unclaimSlot(owner);
            locks.release();
            throw ex;
        }
    }

    /**
     * Makes the table when it is missing, unless live processes still hold slots in its lock file: a table removed
     * from under them (an operator's {@code rm}, a tmp cleaner, systemd's {@code RemoveIPC}) stays mapped in them, and
     * a new table at the path would count every quota a second time beside theirs (found by review: 6 admitted
     * against a limit of 3), so it is refused until they close. The slots are counted before the table is looked for
     * again: a rival starter that made the table and attached meanwhile is then found with its table, which this
     * process opens. Called before every create, however late the removal lands.
     *
     * @param ownOwner this process's owner word when it holds a slot already, else 0.
     */
    private static void createUnlessAttached(final Path file, final long capacity, final int shards,
        final boolean groupReadable, final long nowNanos, final SlotLocks locks, final long ownOwner)
    {
        int attached = 0;
        for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
        {
            final long token = locks.tokenVolatile(slot);
            attached += token != 0 && token != ownOwner && locks.isHeld(slot) ? 1 : 0;
        }
        if (Files.exists(file))
        {
            return;
        }
        if (attached > 0)
        {
            throw new FloodgateFileException(file, "no such file, but " + attached + " process(es) still have " +
                "the table that was removed from this path open (their slots in " + locks.path() + " are held): a " +
                "new table here would count every quota a second time beside theirs; close them first", null);
        }
        TableCreator.create(file, capacity, shards, groupReadable, nowNanos, locks.building());
    }

    private static QuotaTable open(final Path file, final long capacity, final int shards,
        final boolean groupReadable, final long nowNanos, final SlotLocks locks, final long owner)
    {
        for (int attempt = 0; ; attempt++)
        {
            createUnlessAttached(file, capacity, shards, groupReadable, nowNanos, locks, owner);
            final Object inode = TableCreator.inode(file);
            final QuotaTable table = mapExisting(file, locks, owner);
            final BootId current = BootId.current();
            if (table.header().bootId().equals(current))
            {
                try
                {
                    LockFilePairing.pair(table, nowNanos);
                }
                catch (final RuntimeException | Error ex)
                {
                    table.unmapUnopened();
                    throw ex;
                }
                return table;
            }
            final BootId old = table.header().bootId();
            table.unmapUnopened();
            if (attempt > 0)
            {
                throw new FloodgateFileException(file, "was replaced under another boot id twice in a row", null);
            }
            System.getLogger("dev.floodgate").log(System.Logger.Level.WARNING, "{0} was written under boot {1}, " +
                "this is boot {2}: its monotonic times mean nothing now, so it is replaced by an empty table", file,
                old, current);
            TableCreator.replaceStale(file, inode, capacity, shards, groupReadable, nowNanos,
                locks.building());
        }
    }

    private static QuotaTable mapExisting(final Path file, final SlotLocks locks, final long owner)
    {
        FileCheck.check(file, true);
        final ChronicleMap<byte[], byte[]> map;
        try
        {
            map = TableCreator.builder(1, 1).createPersistedTo(file.toFile());
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new FloodgateFileException(file, "cannot be mapped as a Floodgate table: " + ex.getMessage(), ex);
        }
        try
        {
            final VanillaChronicleHash<?, ?, ?, ?> hash = (VanillaChronicleHash<?, ?, ?, ?>)map;
            final long mapped = hash.dataStoreSize();
            final long size = Files.size(file);
            if (size < mapped)
            {
                throw new FloodgateFileException(file, "truncated: " + size + " bytes, the table needs " + mapped,
                    null);
            }
            final TableGuard guard = TableGuard.locate(hash, locks, owner);
            final UnsafeBuffer buffer = headerBuffer(file, map, guard);
            if (buffer == null)
            {
                throw new FloodgateFileException(file, "has no Floodgate header: a table of another format", null);
            }
            final FileHeader header = new FileHeader(buffer);
            if (header.magic() != FileHeader.MAGIC)
            {
                throw new FloodgateFileException(file, "bad magic number 0x" + Long.toHexString(header.magic()) +
                    ": not a Floodgate table", null);
            }
            if (header.version() != FileHeader.FORMAT_VERSION)
            {
                throw new FloodgateFileException(file, "format version " + header.version() + (header.version() >
                    FileHeader.FORMAT_VERSION ? " is newer than" : " is not") + " this Floodgate's version " +
                    FileHeader.FORMAT_VERSION, null);
            }
            if (buffer.capacity() < FileHeader.LENGTH)
            {
                throw new FloodgateFileException(file, "damaged header: " + buffer.capacity() + " bytes, format " +
                    "version " + FileHeader.FORMAT_VERSION + " needs " + FileHeader.LENGTH, null);
            }
            if (header.shards() < 1 || header.shards() > 4096 || header.capacity() < 1)
            {
                throw new FloodgateFileException(file, "damaged header: shards " + header.shards() + ", capacity " +
                    header.capacity(), null);
            }
            return new QuotaTable(file, map, guard, header, locks, owner, TableCreator.inode(file));
        }
        catch (final IOException | RuntimeException ex)
        {
            map.close();
            if (ex instanceof FloodgateFileException || ex instanceof TableBusyException)
            {
                throw (RuntimeException)ex; // a busy table is not a bad file
            }
            throw new FloodgateFileException(file, "cannot be opened: " + ex.getMessage(), ex);
        }
    }

    private static UnsafeBuffer headerBuffer(
        final Path file, final ChronicleMap<byte[], byte[]> map, final TableGuard guard)
    {
        final UnsafeBuffer found = new EntryFinder((VanillaChronicleHash<?, ?, ?, ?>)map, 1)
            .findRecord(TableCreator.HEADER_KEY, FileHeader.CAPACITY_OFFSET);
        if (found != null)
        {
            return found;
        }
        int segment = -1;
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(TableCreator.HEADER_KEY))
        {
            final int s = EntryLocks.segmentOf(c);
            if (!guard.acquireSegment(s, QuotaTable.TOOL_TIMEOUT_NANOS))
            {
                throw EntryLocks.busy(file, "segment " + s, QuotaTable.TOOL_TIMEOUT_NANOS);
            }
            segment = s;
            EntryLocks.lock(file, c.readLock());
            final MapEntry<byte[], byte[]> entry = c.entry();
            if (entry == null || entry.value().size() < FileHeader.CAPACITY_OFFSET)
            {
                return null;
            }
            return EntryLocks.wrap(entry.value(), new UnsafeBuffer(0, 0));
        }
        finally
        {
            if (segment >= 0)
            {
                guard.releaseSegment(segment); // after the context closed: its Chronicle lock is released first
            }
        }
    }
}
