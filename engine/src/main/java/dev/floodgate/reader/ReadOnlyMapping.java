package dev.floodgate.reader;

import dev.floodgate.FloodgateFileException;
import org.agrona.IoUtil;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.ClosedByInterruptException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.Supplier;

/**
 * A file mapped read-only ({@link FileChannel.MapMode#READ_ONLY} over a channel opened for reading only), in
 * overlapping regions so that any range up to {@link #MAX_VIEW} bytes lies whole in one region whatever the
 * file's size. The pages are mapped without write permission: a stray write would fault, never reach the
 * file. Views are bounds-checked against the length mapped at open; a file that grows later is seen only by
 * a new mapping. A file truncated under the mapping faults where a view reads past its end, which the JDK raises as
 * an {@link InternalError}: {@link #damagedIfFaults} turns that into a damaged file. Not thread-safe to close while
 * views are in use.
 */
final class ReadOnlyMapping implements AutoCloseable
{
    /** The longest view: a whole segment tier must fit (the reader refuses a file whose tiers are larger). */
    static final int MAX_VIEW = 1 << 26;
    private static final long REGION = 1L << 30;

    private final Path file;
    private final long size;
    private final MappedByteBuffer[] regions;

    private ReadOnlyMapping(final Path file, final long size, final MappedByteBuffer[] regions)
    {
        this.file = file;
        this.size = size;
        this.regions = regions;
    }

    static ReadOnlyMapping open(final Path file)
    {
        if (!Files.exists(file))
        {
            throw new FloodgateFileException(file, "no such file", null);
        }
        if (!Files.isRegularFile(file))
        {
            throw new FloodgateFileException(file, "not a regular file", null);
        }
        // The caller's interrupt status is set aside for the mapping and given back: FileChannel's size and map are
        // interruptible, and a set status (a metrics scrape on a pooled thread after a cancelled task) closed the
        // channel under them, so stats() failed with "cannot be read: null".
        final boolean interrupted = Thread.interrupted();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final long size = channel.size();
            if (size == 0)
            {
                throw new FloodgateFileException(file, "empty (zero length): not a Floodgate table", null);
            }
            final int count = (int)((size + REGION - 1) / REGION);
            final MappedByteBuffer[] regions = new MappedByteBuffer[count];
            for (int i = 0; i < count; i++)
            {
                final long start = i * REGION;
                regions[i] = channel.map(FileChannel.MapMode.READ_ONLY, start, Math.min(size - start, REGION + MAX_VIEW));
            }
            return new ReadOnlyMapping(file, size, regions);
        }
        catch (final ClosedByInterruptException ex)
        {
            throw new FloodgateFileException(file, "not mapped: this thread was interrupted while mapping it", ex);
        }
        catch (final AccessDeniedException ex)
        {
            throw new FloodgateFileException(file, "permission denied (not readable by this user)", ex);
        }
        catch (final FileSystemException ex)
        {
            throw new FloodgateFileException(file, "cannot be read: " + (ex.getReason() == null ? "I/O error" :
                ex.getReason()), ex);
        }
        catch (final IOException ex)
        {
            throw new FloodgateFileException(file, "cannot be read: " + ex.getMessage(), ex);
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** @return the file. */
    Path file()
    {
        return file;
    }

    /** @return the length mapped. */
    long size()
    {
        return size;
    }

    /**
     * @param offset where in the file.
     * @param length how many bytes, at most {@link #MAX_VIEW}.
     * @return true when that range lies inside the mapping.
     */
    boolean contains(final long offset, final long length)
    {
        return offset >= 0 && length >= 0 && length <= MAX_VIEW && offset <= size - length;
    }

    /**
     * @param offset where in the file.
     * @param length how many bytes, at most {@link #MAX_VIEW}.
     * @param what   names the range for the error message.
     * @return a read-only view of that range.
     * @throws FloodgateFileException when the range is outside the mapping (a damaged or truncated file).
     */
    UnsafeBuffer view(final long offset, final long length, final String what)
    {
        if (!contains(offset, length))
        {
            throw new FloodgateFileException(file, "damaged: " + what + " at offset " + offset + " (" + length +
                " bytes) lies outside the file's " + size + " bytes", null);
        }
        final int region = (int)(offset / REGION);
        return new UnsafeBuffer(regions[region], (int)(offset - region * REGION), (int)length);
    }

    /**
     * The file's length against the mapping's, before a read: a read past a truncated file's end faults, and in
     * compiled code the JDK raises that InternalError at a later instruction, maybe past any catch around the read.
     */
    void requireWhole()
    {
        long length = -1;
        try
        {
            length = Files.size(file);
        }
        catch (final IOException gone)
        {
            // removed (the mapping still reads the file) or unreadable: the read says what it meets
        }
        if (length >= 0 && length < size)
        {
            throw new FloodgateFileException(file, "damaged: truncated to " + length + " bytes under " +
                "this reader, which mapped " + size, null);
        }
    }

    /**
     * A read of the mapping that faults (the file truncated under it: the JDK raises InternalError) is a damaged
     * file, for every read of the reader (a review found only its open and its walk of the entries saying so: the
     * other reads let the InternalError out, and the CLI asked the operator to report a bug).
     *
     * @param read reads through this mapping's views.
     * @return what it read.
     * @throws FloodgateFileException when the file is shorter than mapped, or the read faulted.
     */
    <T> T damagedIfFaults(final Supplier<T> read)
    {
        requireWhole();
        try
        {
            return read.get();
        }
        catch (final InternalError ex)
        {
            throw new FloodgateFileException(file, "damaged: " + ex.getMessage(), ex);
        }
    }

    @Override
    public void close()
    {
        for (int i = 0; i < regions.length; i++)
        {
            if (regions[i] != null)
            {
                IoUtil.unmap(regions[i]);
                regions[i] = null;
            }
        }
    }
}
