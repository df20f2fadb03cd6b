package dev.floodgate.store;

import dev.floodgate.FloodgateFileException;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Liveness kept by the kernel: every attached process holds an exclusive {@code fcntl} (POSIX record) lock on
 * one byte of the table's lock file, at the offset of its process slot. The kernel drops the lock when the
 * process dies, however it dies, before it becomes a zombie, and whatever pid namespace it or the observer runs
 * in (containers of one pod share {@code /dev/shm} but not pids). So "is the owner of slot k alive?" is "can I
 * not take a shared lock on byte k?", and no pid is ever interpreted.
 *
 * <p>POSIX locks belong to the process, and closing <em>any</em> descriptor of the file drops all of them. So
 * the lock file is not the table (Chronicle Map and readers open and close that freely) and each JVM opens it
 * once: one channel per lock file, shared by every instance in the JVM through {@link #acquire}, closed only
 * when its last user releases it and no slot lock is held through it.
 *
 * <p>The lock file also holds each slot's current owner word ({@link #tokenVolatile}): a process publishes it
 * right after taking the slot's lock and before it takes any guard, so a guard's owner word is alive exactly
 * while the slot's lock is held and the slot still names that word. The file is 1 KiB:
 *
 * <pre>
 *   0      slot 0's owner word (64)     byte 0 is also slot 0's lock byte
 *   8      slot 1's owner word (64)     byte 1 is slot 1's lock byte
 *   ...    {@link FileHeader#MAX_PROCESSES} words
 *   1000   the replace lock's byte (a table from a previous boot is replaced under it)
 *   1023   last byte, written once to give the file its length
 * </pre>
 *
 * <p>Thread-safe. A {@link #isHeld} answer is a moment's truth: a slot found free can be claimed the next
 * instant, and a holder found alive can die the next.
 */
public final class SlotLocks
{
    /** The lock file of {@code table}: a sibling named {@code <table>.lock}. */
    public static Path lockFileOf(final Path table)
    {
        return table.resolveSibling(table.getFileName() + ".lock");
    }

    private static final Map<Path, SlotLocks> OPEN = new HashMap<>(); // guarded by OPEN
    private static final int LENGTH = 1024;
    private static final long REPLACE_BYTE = 1000;
    private static final long TOKEN_MASK = (1L << 56) - 1;

    private final Path path;
    private final Map<Integer, FileLock> held = new HashMap<>(); // guarded by this
    private FileChannel channel; // guarded by this
    private boolean writable; // guarded by this
    private volatile UnsafeBuffer words;
    private int users; // guarded by OPEN

    private SlotLocks(final Path path, final FileChannel channel, final boolean writable)
    {
        this.path = path;
        this.channel = channel;
        this.writable = writable;
        this.words = map(path, channel, writable);
    }

    private static UnsafeBuffer map(final Path path, final FileChannel channel, final boolean writable)
    {
        try
        {
            if (writable && channel.size() < LENGTH)
            {
                channel.write(ByteBuffer.allocate(1), LENGTH - 1); // past every word: a racing creator clobbers none
            }
            if (channel.size() < LENGTH)
            {
                throw new FloodgateFileException(path, "is " + channel.size() + " bytes, a lock file has " + LENGTH,
                    null);
            }
            return new UnsafeBuffer(channel.map(writable ? FileChannel.MapMode.READ_WRITE :
                FileChannel.MapMode.READ_ONLY, 0, LENGTH));
        }
        catch (final IOException ex)
        {
            throw new FloodgateFileException(path, "cannot be mapped: " + ex.getMessage(), ex);
        }
    }

    /**
     * Opens (creating when absent) the lock file of a table this process will attach to.
     *
     * @param table         the table file.
     * @param groupReadable the table's permission choice, applied to a new lock file.
     * @return the JVM's shared handle on the lock file; {@link #release} it once.
     * @throws FloodgateFileException when the lock file cannot be created or opened for writing.
     */
    public static SlotLocks acquire(final Path table, final boolean groupReadable)
    {
        final Path path = lockFileOf(table.toAbsolutePath());
        synchronized (OPEN)
        {
            SlotLocks locks = OPEN.get(path);
            if (locks == null)
            {
                locks = new SlotLocks(path, openWritable(path, groupReadable), true);
                OPEN.put(path, locks);
            }
            else
            {
                locks.upgrade(groupReadable);
            }
            locks.users++;
            return locks;
        }
    }

    /**
     * Opens the lock file of a table for liveness tests only (shared locks), without creating or writing it.
     *
     * @param table the table file.
     * @return the handle, or null when the table has no lock file (no process ever attached under this format).
     * @throws FloodgateFileException when the lock file exists but cannot be read.
     */
    public static SlotLocks acquireReadOnly(final Path table)
    {
        final Path path = lockFileOf(table.toAbsolutePath());
        synchronized (OPEN)
        {
            SlotLocks locks = OPEN.get(path);
            if (locks == null)
            {
                final FileChannel channel;
                try
                {
                    channel = FileChannel.open(path, StandardOpenOption.READ);
                }
                catch (final NoSuchFileException absent)
                {
                    return null;
                }
                catch (final IOException ex)
                {
                    throw new FloodgateFileException(path, "cannot be read: " + ex.getMessage(), ex);
                }
                locks = new SlotLocks(path, channel, false);
                OPEN.put(path, locks);
            }
            locks.users++;
            return locks;
        }
    }

    /** A reader here opened the file read-only first: it held no exclusive lock, so swapping channels drops none. */
    private synchronized void upgrade(final boolean groupReadable)
    {
        if (!writable)
        {
            final FileChannel fresh = openWritable(path, groupReadable);
            final UnsafeBuffer mapped = map(path, fresh, true);
            closeChannel();
            channel = fresh;
            words = mapped;
            writable = true;
        }
    }

    private static FileChannel openWritable(final Path path, final boolean groupReadable)
    {
        try
        {
            try
            {
                Files.createFile(path, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString(groupReadable ? "rw-r-----" : "rw-------")));
            }
            catch (final FileAlreadyExistsException exists)
            {
                // another process made it first
            }
            return FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
        catch (final IOException ex)
        {
            throw new FloodgateFileException(path, "cannot be opened for writing: " + ex.getMessage() +
                " (every process that checks limits needs write access to the table and its lock file)", ex);
        }
    }

    /** Drops this user's hold; the channel closes with the last user, and never while a slot lock is held. */
    public void release()
    {
        synchronized (OPEN)
        {
            if (--users > 0)
            {
                return;
            }
            synchronized (this)
            {
                if (!held.isEmpty())
                {
                    users = 0; // slot locks outlive their instances only through a bug; keep them rather than drop
                    return;
                }
            }
            OPEN.remove(path);
            closeChannel();
        }
    }

    private synchronized void closeChannel()
    {
        try
        {
            channel.close();
        }
        catch (final IOException ignored)
        {
            // nothing was held through it
        }
    }

    /** @return the lock file. */
    public Path path()
    {
        return path;
    }

    /**
     * Claims the first free slot for this process: takes its lock, then publishes a fresh owner word in it.
     *
     * @return the owner word (slot index and a random token, never 0); {@link #slotOf} gives the slot.
     * @throws IllegalStateException when every slot belongs to a live process.
     */
    public long claimSlot()
    {
        for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
        {
            if (tryClaim(slot))
            {
                long token;
                do
                {
                    token = ThreadLocalRandom.current().nextLong() & TOKEN_MASK;
                }
                while (token == 0);
                final long owner = ((long)(slot + 1) << 56) | token;
                words.putLongVolatile(8 * slot, owner);
                return owner;
            }
        }
        throw new IllegalStateException("all " + FileHeader.MAX_PROCESSES + " process slots of " + path +
            " are held by live processes");
    }

    /** Clears and unlocks a slot claimed by {@link #claimSlot}. @param owner its owner word. */
    public void unclaimSlot(final long owner)
    {
        final int slot = slotOf(owner);
        words.compareAndSetLong(8 * slot, owner, 0);
        unclaim(slot);
    }

    /** @param owner an owner word. @return its slot index, or -1 when the word names no slot. */
    public static int slotOf(final long owner)
    {
        final int slot = (int)(owner >>> 56) - 1;
        return slot >= 0 && slot < FileHeader.MAX_PROCESSES ? slot : -1;
    }

    /** @param slot a slot. @return the owner word it holds now, volatile read; 0 when none. */
    public long tokenVolatile(final int slot)
    {
        return words.getLongVolatile(8 * slot);
    }

    /**
     * @param owner an owner word, as a guard recorded it.
     * @return true when the registration it names is still live: its process holds the slot and the slot still
     * names this word (a later owner of the slot would have published another).
     */
    public boolean isAlive(final long owner)
    {
        final int slot = slotOf(owner);
        return slot >= 0 && tokenVolatile(slot) == owner && isHeld(slot);
    }

    /**
     * Runs {@code action} holding the lock file's replace lock (byte {@link #REPLACE_BYTE}), exclusive among
     * every process and thread: replacing a table file from a previous boot must happen once. Not the table's
     * own lock: Chronicle Map holds a shared lock on the table for as long as it is mapped.
     *
     * @param action what to do under the lock.
     * @throws IOException from the action or the lock.
     */
    public synchronized void underReplaceLock(final IoAction action) throws IOException
    {
        try (FileLock ignored = channel.lock(REPLACE_BYTE, 1, false))
        {
            action.run();
        }
    }

    /** An action that may throw {@link IOException}. */
    @FunctionalInterface
    public interface IoAction
    {
        /** @throws IOException as it may. */
        void run() throws IOException;
    }

    /**
     * Takes slot {@code slot}'s lock for this process, without waiting.
     *
     * @param slot a process slot.
     * @return true when this process now holds it; false when another process (or instance here) does.
     */
    public synchronized boolean tryClaim(final int slot)
    {
        if (held.containsKey(slot))
        {
            return false;
        }
        try
        {
            final FileLock lock = channel.tryLock(slot, 1, false);
            if (lock == null)
            {
                return false;
            }
            held.put(slot, lock);
            return true;
        }
        catch (final OverlappingFileLockException ex)
        {
            return false;
        }
        catch (final IOException ex)
        {
            throw new FloodgateFileException(path, "cannot be locked: " + ex.getMessage(), ex);
        }
    }

    /** @param slot a slot this process claimed; its lock is dropped. */
    public synchronized void unclaim(final int slot)
    {
        final FileLock lock = held.remove(slot);
        if (lock != null)
        {
            try
            {
                lock.release();
            }
            catch (final IOException ex)
            {
                throw new FloodgateFileException(path, "cannot be unlocked: " + ex.getMessage(), ex);
            }
        }
    }

    /**
     * @param slot a process slot.
     * @return true when a live process (this one included) holds the slot's lock.
     */
    public synchronized boolean isHeld(final int slot)
    {
        if (held.containsKey(slot))
        {
            return true;
        }
        try
        {
            final FileLock probe = channel.tryLock(slot, 1, true);
            if (probe == null)
            {
                return true;
            }
            probe.release();
            return false;
        }
        catch (final OverlappingFileLockException ex)
        {
            return true; // another instance in this JVM holds it
        }
        catch (final IOException ex)
        {
            throw new FloodgateFileException(path, "cannot be locked: " + ex.getMessage(), ex);
        }
    }
}
