package dev.floodgate.store;

import dev.floodgate.FloodgateFileException;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;

/**
 * Makes table files: the one Chronicle Map configuration every table has, a new file built in a private
 * temporary file and linked into place only when complete (so a process never maps a half-made table and
 * concurrent creators cannot both win), and the replacement of a file written under a previous boot.
 */
final class TableCreator
{
    static final byte[] HEADER_KEY = new byte[KeyHasher.KEY_LENGTH];
    private static final int CHUNK = 64;
    /** Each segment has a guard of its own ({@link TableGuard}): more segments, less held up by one holder. */
    private static final int MIN_SEGMENTS = 8;
    private static final long MIN_SIZED_ENTRIES = 1_024;

    private TableCreator()
    {
    }

    static ChronicleMapBuilder<byte[], byte[]> builder(final long capacity, final int shards)
    {
        // Buckets and blocked counters take 2 lines, windows 2 + shards; assume a mix weighted to buckets.
        final double averageValue = (2.0 * EntryLayout.HEADER_LENGTH + EntryLayout.valueLength(
            Entry.KIND_WINDOW, shards)) / 3.0;
        return ChronicleMapBuilder.of(byte[].class, byte[].class)
            .name("floodgate")
            .constantKeySizeBySample(new byte[KeyHasher.KEY_LENGTH])
            .averageValueSize(averageValue)
            // small tables are sized for MIN_SIZED_ENTRIES: a segment tier must hold the file's record whole
            .entries(Math.max(capacity, MIN_SIZED_ENTRIES) + 1)
            .minSegments(MIN_SEGMENTS) // spread guards and hostile keys even in a small table
            .actualChunkSize(CHUNK)
            .maxChunksPerEntry(2 + FileHeader.LENGTH / CHUNK + (EntryLayout.SHARDS_OFFSET + 4096 * 64) / CHUNK)
            .entryAndValueOffsetAlignment(CHUNK)
            .checksumEntries(false)   // direct atomic writes would make checksums stale; see NOTES.md
            .maxBloatFactor(1.5)
            .sparseFile(false);
    }

    static void create(
        final Path file, final long capacity, final int shards, final boolean groupReadable, final long nowNanos)
    {
        final Path dir = file.toAbsolutePath().getParent();
        final Path temp;
        try
        {
            if (!Files.isDirectory(dir))
            {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString(groupReadable ? "rwxr-x---" : "rwx------")));
            }
            temp = Files.createTempFile(dir, "." + file.getFileName() + ".", ".creating",
                PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString(groupReadable ? "rw-r-----" : "rw-------")));
        }
        catch (final IOException ex)
        {
            throw new FloodgateFileException(file, "cannot be created: " + describe(ex), ex);
        }
        try
        {
            build(temp, capacity, shards, nowNanos);
            try
            {
                Files.createLink(file, temp);
            }
            catch (final FileAlreadyExistsException raced)
            {
                // another process created it first: use theirs
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new FloodgateFileException(file, "cannot be created: " + describe(ex), ex);
        }
        finally
        {
            try
            {
                Files.deleteIfExists(temp);
            }
            catch (final IOException ignored)
            {
                // a leftover temp file is harmless and named as such
            }
        }
    }

    private static void build(final Path temp, final long capacity, final int shards, final long nowNanos)
        throws IOException
    {
        try (ChronicleMap<byte[], byte[]> map = builder(capacity, shards).createPersistedTo(temp.toFile()))
        {
            final SecureRandom random = new SecureRandom();
            final byte[] value = new byte[FileHeader.LENGTH];
            FileHeader.initialise(new UnsafeBuffer(value), shards, capacity, BootId.current(),
                random.nextLong(), random.nextLong(), nowNanos);
            map.put(HEADER_KEY, value);
        }
    }

    static Object inode(final Path file)
    {
        try
        {
            return Files.readAttributes(file, "unix:ino").get("ino");
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            throw new FloodgateFileException(file, "cannot be inspected: " + ex.getMessage(), ex);
        }
    }

    static void replaceStale(
        final Path file,
        final Object staleInode,
        final long capacity,
        final int shards,
        final boolean groupReadable,
        final long nowNanos,
        final SlotLocks locks)
    {
        try
        {
            locks.underReplaceLock(() ->
            {
                // Under the lock, the path must still name the inode we found stale: otherwise another process
                // replaced it meanwhile, and its fresh table is the one to use.
                if (!staleInode.equals(inode(file)))
                {
                    return;
                }
                final Path fresh = file.resolveSibling("." + file.getFileName() + ".fresh");
                Files.deleteIfExists(fresh);
                Files.createFile(fresh, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString(groupReadable ? "rw-r-----" : "rw-------")));
                build(fresh, capacity, shards, nowNanos);
                Files.move(fresh, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            });
        }
        catch (final IOException ex)
        {
            throw new FloodgateFileException(file, "from a previous boot cannot be replaced: " + describe(ex), ex);
        }
    }

    static String describe(final Exception ex)
    {
        return ex instanceof java.nio.file.AccessDeniedException ? "permission denied (" + ex.getMessage() + ")" :
            String.valueOf(ex.getMessage() == null ? ex : ex.getMessage());
    }
}
