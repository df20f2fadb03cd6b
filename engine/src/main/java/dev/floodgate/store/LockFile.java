package dev.floodgate.store;

import dev.floodgate.FloodgateFileException;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The JVM's one channel on a lock file, its mapping, and the {@code fcntl} (POSIX record) locks taken through
 * it, one byte each. Where the bytes and words lie is {@link LockFileLayout}'s, what they mean {@link SlotLocks}'
 * and {@link BuildLocks}'; creating, sizing and mapping the file on disk is {@link LockFileOpener}'s.
 *
 * <p>POSIX locks belong to the process, and closing <em>any</em> descriptor of the file drops all of them. So
 * every user in the JVM shares one instance ({@link #acquire}), whose channel closes only with its last user and
 * never while a byte lock is held through it. Opened read-only first, it is upgraded in place when a writer
 * arrives: a reader holds no exclusive lock, so swapping channels drops none.
 *
 * <p>Thread-safe. A {@link #isLocked} answer is a moment's truth.
 */
final class LockFile
{
    private static final Map<Path, LockFile> OPEN = new HashMap<>(); // guarded by OPEN

    private final Path path;
    private final Map<Long, FileLock> held = new HashMap<>(); // guarded by this
    private FileChannel channel; // guarded by this
    private boolean writable; // guarded by this
    private volatile UnsafeBuffer words;
    private volatile long inode;
    private int users; // guarded by OPEN

    private LockFile(final Path path, final FileChannel channel, final boolean writable)
    {
        this.path = path;
        this.channel = channel;
        this.writable = writable;
        this.words = LockFileOpener.mapOrClose(path, channel, writable);
        this.inode = LockFileOpener.inode(path);
    }

    /** @return the inode of the file this handle holds open, 0 when it could not be read. */
    long inode()
    {
        return inode;
    }

    /**
     * @param path          the lock file, absolute.
     * @param groupReadable the permission choice applied to a new file.
     * @return the JVM's shared handle, writable, created when absent; {@link #release} it once.
     * @throws FloodgateFileException when it cannot be created or opened for writing.
     */
    static LockFile acquire(final Path path, final boolean groupReadable)
    {
        synchronized (OPEN)
        {
            LockFile file = OPEN.get(path);
            if (file == null)
            {
                file = new LockFile(path, LockFileOpener.openWritable(path, groupReadable), true);
                OPEN.put(path, file);
            }
            else
            {
                file.upgrade(groupReadable);
            }
            file.users++;
            return file;
        }
    }

    /**
     * @param path the lock file, absolute.
     * @return the JVM's shared handle, never creating or writing the file; null when there is no such file.
     * @throws FloodgateFileException when it exists but cannot be read.
     */
    static LockFile acquireReadOnly(final Path path)
    {
        synchronized (OPEN)
        {
            LockFile file = OPEN.get(path);
            if (file == null)
            {
                final FileChannel channel = LockFileOpener.openReadOnly(path);
                if (channel == null)
                {
                    return null;
                }
                file = new LockFile(path, channel, false);
                OPEN.put(path, file);
            }
            file.users++;
            return file;
        }
    }

    /** Drops this user's hold; the channel closes with the last user, and never while a byte lock is held. */
    void release()
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
                    users = 0; // byte locks outlive their users only through a bug; keep them rather than drop
                    return;
                }
            }
            OPEN.remove(path);
            closeChannel();
        }
    }

    Path path()
    {
        return path;
    }

    /** @return the whole file, mapped; read-only unless a writer acquired it. */
    UnsafeBuffer words()
    {
        return words;
    }

    /**
     * Takes the exclusive lock on byte {@code position} for this process, without waiting.
     *
     * @param position a byte of the file.
     * @return true when this process now holds it; false when another process (or user here) does.
     */
    synchronized boolean tryLock(final long position)
    {
        if (held.containsKey(position))
        {
            return false;
        }
        try
        {
            final FileLock lock = channel.tryLock(position, 1, false);
            if (lock == null)
            {
                return false;
            }
            held.put(position, lock);
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

    /** @param position a byte this process locked with {@link #tryLock}; its lock is dropped. */
    synchronized void unlock(final long position)
    {
        final FileLock lock = held.remove(position);
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
     * @param position a byte of the file.
     * @return true when a live process (this one included) holds its exclusive lock: a shared lock is refused.
     */
    synchronized boolean isLocked(final long position)
    {
        if (held.containsKey(position))
        {
            return true;
        }
        try
        {
            final FileLock probe = channel.tryLock(position, 1, true);
            if (probe == null)
            {
                return true;
            }
            probe.release();
            return false;
        }
        catch (final OverlappingFileLockException ex)
        {
            return true; // another user in this JVM holds it
        }
        catch (final IOException ex)
        {
            throw new FloodgateFileException(path, "cannot be locked: " + ex.getMessage(), ex);
        }
    }

    /**
     * Runs {@code action} holding byte {@code position}'s exclusive lock, waiting for it: exclusive among every
     * process and, through this instance's monitor, every thread.
     *
     * @param timeoutNanos how long to wait for a live holder (a stopped one holds the byte as long as it stays so).
     * @throws IOException from the action or the lock, or when the lock stayed held for {@code timeoutNanos}.
     */
    synchronized void underLock(final long position, final long timeoutNanos, final IoAction action)
        throws IOException
    {
        // tried, not FileChannel.lock: that one is interruptible, and an interrupt while it waits closes the channel,
        // which drops every slot lock this JVM holds on the file and left it unusable to later opens (found by review)
        FileLock lock;
        long parkNanos = 100_000L;
        final long start = System.nanoTime();
        while ((lock = channel.tryLock(position, 1, false)) == null)
        {
            if (System.nanoTime() - start >= timeoutNanos)
            {
                throw new IOException(path + ": another process held byte " + position + " of it for " +
                    timeoutNanos / 1_000_000L + " ms (a process stopped while it held it)");
            }
            LockSupport.parkNanos(parkNanos);
            parkNanos = Math.min(2 * parkNanos, 10_000_000L);
            if (Thread.currentThread().isInterrupted())
            {
                throw new java.io.InterruptedIOException(path + ": interrupted while another process held byte " +
                    position + " of it (a table being replaced)");
            }
        }
        try (FileLock held = lock)
        {
            action.run();
        }
    }

    private synchronized void upgrade(final boolean groupReadable)
    {
        if (!writable)
        {
            final FileChannel fresh = LockFileOpener.openWritable(path, groupReadable);
            final UnsafeBuffer mapped = LockFileOpener.mapOrClose(path, fresh, true);
            closeChannel();
            channel = fresh;
            words = mapped;
            inode = LockFileOpener.inode(path);
            writable = true;
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
}
