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
    static final String TEMP_SUFFIX = ".creating";

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
            .sparseFile(false)
            // Chronicle's hook closed every map at JVM exit, unmapping the table under threads still checking: the
            // dying JVM crashed with SIGSEGV (found when a bench worker exited mid-run). The kernel unmaps it with the
            // process; Floodgate.close and the instance's cleaner unmap it while the JVM runs.
            .skipCloseOnExitHook(true);
    }

    /**
     * Builds a new table in a temporary file named after a creator lock this process holds meanwhile
     * ({@code .<name>.c<creator>.*.creating}, see {@link #removeDeadTemps}) and links it into place.
     *
     * @param locks the table's lock file.
     */
    static void create(final Path file, final long capacity, final int shards, final boolean groupReadable,
        final long nowNanos, final BuildLocks locks)
    {
        final FloodgateFileException failed;
        final int creator = locks.claimCreator();
        try
        {
            create(file, capacity, shards, groupReadable, nowNanos, creator);
            return;
        }
        catch (final FloodgateFileException ex)
        {
            failed = ex;
        }
        finally
        {
            locks.unclaimCreator(creator); // before waiting: two failed creators must not wait for each other
        }
        if (!CreatorTemps.awaitRivalTable(file, locks))
        {
            throw failed;
        }
    }

    private static void create(final Path file, final long capacity, final int shards, final boolean groupReadable,
        final long nowNanos, final int creator)
    {
        final Path temp = buildTemp(file, capacity, shards, groupReadable, nowNanos, creator);
        try
        {
            Files.createLink(file, temp);
        }
        catch (final FileAlreadyExistsException raced)
        {
            // another process created it first: use theirs
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new FloodgateFileException(file, "cannot be created: " + describe(ex), ex);
        }
        finally
        {
            deleteTemp(temp);
        }
    }

    /**
     * Builds a complete table in a new temporary file of the table's directory named after {@code creator}, a
     * creator lock this process holds meanwhile ({@link CreatorTemps#removeDeadTemps}).
     *
     * @return the temporary file; the caller links or moves it into place and removes it.
     */
    private static Path buildTemp(final Path file, final long capacity, final int shards,
        final boolean groupReadable, final long nowNanos, final int creator)
    {
        DirectoryAccess.makeDirectory(file, groupReadable);
        final Path dir = file.toAbsolutePath().getParent();
        final Path temp;
        try
        {
            temp = Files.createTempFile(dir, tempPrefix(file) + "c" + creator + ".", TEMP_SUFFIX,
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
            return temp;
        }
        catch (final IOException | RuntimeException ex)
        {
            deleteTemp(temp);
            throw new FloodgateFileException(file, "cannot be created: " + describe(ex), ex);
        }
        catch (final Error ex)
        {
            deleteTemp(temp);
            throw ex;
        }
    }

    private static void deleteTemp(final Path temp)
    {
        try
        {
            Files.deleteIfExists(temp);
        }
        catch (final IOException ignored)
        {
            // a leftover temp file is named after its creator lock: the next open removes it
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

    static String tempPrefix(final Path file)
    {
        return "." + file.getFileName() + ".";
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

    /**
     * Replaces the table at {@code file}, found written under a previous boot as inode {@code staleInode}, unless
     * another process replaced (or removed) it meanwhile. Built as {@link #create} builds, and only the test of the
     * path and the rename run under the replace lock: a process stopped while it built there held every other open
     * for as long as it stayed stopped (found by review). Replacers at once each build; the first rename wins, and one
     * whose build failed (no room for a second replacement) waits for a live rival's, as a creator does.
     */
    static void replaceStale(
        final Path file,
        final Object staleInode,
        final long capacity,
        final int shards,
        final boolean groupReadable,
        final long nowNanos,
        final BuildLocks locks)
    {
        if (!staleInode.equals(inodeOrNull(file)))
        {
            return; // replaced already: the caller maps what is there now
        }
        final int creator = locks.claimCreator();
        final Path temp;
        try
        {
            temp = buildTemp(file, capacity, shards, groupReadable, nowNanos, creator);
        }
        catch (final RuntimeException | Error ex)
        {
            locks.unclaimCreator(creator); // before waiting: two failed replacers must not wait for each other
            if (ex instanceof FloodgateFileException &&
                CreatorTemps.awaitRival(() -> !staleInode.equals(inodeOrNull(file)), locks))
            {
                return; // a rival's replacement (or none: the caller creates one)
            }
            throw ex;
        }
        try
        {
            try
            {
                locks.underReplaceLock(() ->
                {
                    // still the stale inode, or another process's fresh table (or none: the caller creates one)
                    if (staleInode.equals(inodeOrNull(file)))
                    {
                        Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                    }
                });
            }
            catch (final IOException ex)
            {
                throw new FloodgateFileException(file, "from a previous boot cannot be replaced: " + describe(ex), ex);
            }
            finally
            {
                deleteTemp(temp);
            }
        }
        finally
        {
            locks.unclaimCreator(creator);
        }
    }

    private static Object inodeOrNull(final Path file)
    {
        try
        {
            return Files.readAttributes(file, "unix:ino").get("ino");
        }
        catch (final IOException ex)
        {
            return null;
        }
    }

    static String describe(final Exception ex)
    {
        if (ex instanceof java.nio.file.AccessDeniedException)
        {
            return "permission denied (" + ex.getMessage() + ")";
        }
        return String.valueOf(ex.getMessage() == null ? ex : ex.getMessage());
    }
}
