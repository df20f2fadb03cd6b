package dev.floodgate.store;

import dev.floodgate.FloodgateFileException;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Opening a lock file on disk: creating it with its permissions when absent, giving it its length, mapping it,
 * and the words of every error on the way. Which channel the JVM keeps, and the locks taken through it, are
 * {@link LockFile}'s. Stateless.
 */
final class LockFileOpener
{
    private LockFileOpener()
    {
    }

    /**
     * @return a read-write channel on {@code path}, created when absent.
     * @throws FloodgateFileException when it cannot be created or opened for writing; naming the directory when
     * that is what this user may not write (the lock file is made before the table: a user who never named the
     * lock file was told it "cannot be opened for writing").
     */
    static FileChannel openWritable(final Path path, final boolean groupReadable)
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
            catch (final FileSystemException ex)
            {
                if (DirectoryAccess.isDenial(ex))
                {
                    requireWritableDirectory(path, ex);
                }
                throw ex;
            }
            return FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        }
        catch (final IOException ex)
        {
            // a denial's message is the path alone: "LOCK: cannot be opened for writing: LOCK" said nothing of why
            throw new FloodgateFileException(path, (DirectoryAccess.isDenial(ex) ? "not writable by this user" :
                "cannot be opened for writing: " + ex.getMessage()) +
                " (every process that checks limits needs write access to the table and its lock file)", ex);
        }
    }

    /**
     * @throws FloodgateFileException naming the directory of {@code path} when this user may not write it; saying
     * whether the table is made there too, or only its lock file (a table that exists, opened by {@code reset}).
     */
    private static void requireWritableDirectory(final Path path, final IOException ex)
    {
        final Path dir = DirectoryAccess.unwritableAncestor(path);
        if (dir != null && dir.equals(path.toAbsolutePath().getParent()))
        {
            final String name = path.getFileName().toString();
            final boolean tableExists = name.endsWith(".lock") &&
                Files.exists(path.resolveSibling(name.substring(0, name.length() - ".lock".length())));
            throw new FloodgateFileException(dir, "not writable by this user (" + (tableExists ?
                "the table's lock file, " + name + ", is made there)" :
                "the table and its lock file, " + name + ", are made there)"), ex);
        }
    }

    /**
     * @return a read-only channel on {@code path}; null when there is no such file.
     * @throws FloodgateFileException when it exists but cannot be read.
     */
    static FileChannel openReadOnly(final Path path)
    {
        try
        {
            return FileChannel.open(path, StandardOpenOption.READ);
        }
        catch (final NoSuchFileException absent)
        {
            return null;
        }
        catch (final IOException ex)
        {
            throw new FloodgateFileException(path, DirectoryAccess.isDenial(ex) ? "not readable by this user (the " +
                "processes attached to a table are counted from its lock file: a reader needs read access to it as " +
                "to the table)" : "cannot be read: " + ex.getMessage(), ex);
        }
    }

    /**
     * The inode of the file at {@code path}, read just after it was opened: the file a handle holds (Java cannot ask
     * an open channel), which later opens of the JVM share even after the path names another file.
     *
     * @return the inode; 0 when it cannot be read (removed this instant, or no inodes here: paired with nothing,
     * see {@link LockFilePairing}).
     */
    static long inode(final Path path)
    {
        try
        {
            return ((Number)Files.getAttribute(path, "unix:ino")).longValue();
        }
        catch (final IOException | UnsupportedOperationException | IllegalArgumentException ex)
        {
            return 0;
        }
    }

    /**
     * @return the whole file, mapped read-write when {@code writable} (which first gives a new file its length),
     * else read-only.
     * @throws FloodgateFileException when it is shorter than {@link LockFileLayout#LENGTH} or cannot be mapped.
     */
    private static UnsafeBuffer map(final Path path, final FileChannel channel, final boolean writable)
    {
        try
        {
            if (writable && channel.size() < LockFileLayout.LENGTH)
            {
                // past every word: a racing creator clobbers none
                channel.write(ByteBuffer.allocate(1), LockFileLayout.LENGTH - 1);
            }
            if (channel.size() < LockFileLayout.LENGTH)
            {
                throw new FloodgateFileException(path, "is " + channel.size() + " bytes, a lock file has " +
                    LockFileLayout.LENGTH, null);
            }
            return new UnsafeBuffer(channel.map(writable ? FileChannel.MapMode.READ_WRITE :
                FileChannel.MapMode.READ_ONLY, 0, LockFileLayout.LENGTH));
        }
        catch (final IOException ex)
        {
            throw new FloodgateFileException(path, "cannot be mapped: " + ex.getMessage(), ex);
        }
    }

    /**
     * Maps the file through {@code channel}, closing the channel when that fails: a channel left open is closed by
     * its cleaner at some GC, and that close would drop every POSIX lock this process then holds on the file (found
     * by review: a lock file too short to map, met by a reader).
     */
    static UnsafeBuffer mapOrClose(final Path path, final FileChannel channel, final boolean writable)
    {
        try
        {
            return map(path, channel, writable);
        }
        catch (final RuntimeException | Error ex)
        {
            try
            {
                channel.close();
            }
            catch (final IOException | RuntimeException closeFailed)
            {
                ex.addSuppressed(closeFailed);
            }
            throw ex;
        }
    }
}
