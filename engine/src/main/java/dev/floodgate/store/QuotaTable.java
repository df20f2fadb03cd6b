package dev.floodgate.store;

import dev.floodgate.Action;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapSegmentContext;
import net.openhft.chronicle.hash.impl.BigSegmentHeader;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The shared table: one Chronicle Map file of fixed-size keys ({@link KeyHasher}) to 64-byte aligned values
 * ({@link EntryLayout}), plus the file's own record ({@link FileHeader}).
 *
 * <p>Every method here takes a Chronicle Map segment lock and belongs on a cold path: first sight of a key in
 * a process, inserts, resets, the janitor and tools. Checks on warm keys use the addresses this class
 * {@linkplain #resolve resolves} and take no lock. Thread-safe; Chronicle Map's query contexts are
 * per thread.
 *
 * <p>The file is created in a private temporary file and linked into place only when complete, so a
 * process never maps a half-made table and concurrent creators cannot both win.
 */
public final class QuotaTable implements AutoCloseable
{
    private static final System.Logger LOG = System.getLogger("dev.floodgate");
    private static final byte[] HEADER_KEY = new byte[KeyHasher.KEY_LENGTH];
    private static final int CHUNK = 64;
    private static final int MIN_SEGMENTS = 8;
    private static final long MIN_SIZED_ENTRIES = 1_024;

    /** How long a check's cold path waits for the guard before it degrades: well inside a second. */
    public static final long CHECK_TIMEOUT_NANOS = 200_000_000L;
    /** How long tools, resets and the janitor wait for the guard. */
    public static final long TOOL_TIMEOUT_NANOS = 2_000_000_000L;

    private final Path file;
    private final ChronicleMap<byte[], byte[]> map;
    private final TableGuard guard;
    private final FileHeader header;
    private final KeyHasher hasher;
    private final int shards;
    private final long capacity;

    private QuotaTable(
        final Path file, final ChronicleMap<byte[], byte[]> map, final TableGuard guard, final FileHeader header)
    {
        this.file = file;
        this.map = map;
        this.guard = guard;
        this.header = header;
        this.hasher = new KeyHasher(header.secret0(), header.secret1());
        this.shards = header.shards();
        this.capacity = header.capacity();
    }

    /**
     * Maps the table at {@code file}, creating it when absent and replacing it when it was written under a
     * previous boot of the host.
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
        Objects.requireNonNull(file, "file");
        for (int attempt = 0; ; attempt++)
        {
            if (!Files.exists(file))
            {
                create(file, capacity, shards, groupReadable, nowNanos);
            }
            final Object inode = inode(file);
            final QuotaTable table = mapExisting(file);
            final BootId current = BootId.current();
            if (table.header.bootId().equals(current))
            {
                return table;
            }
            final BootId old = table.header.bootId();
            table.close();
            if (attempt > 0)
            {
                throw new FloodgateFileException(file, "was replaced under another boot id twice in a row", null);
            }
            LOG.log(System.Logger.Level.WARNING, "{0} was written under boot {1}, this is boot {2}: its monotonic " +
                "times mean nothing now, so it is replaced by an empty table", file, old, current);
            replaceStale(file, inode, capacity, shards, groupReadable, nowNanos);
        }
    }

    private static QuotaTable mapExisting(final Path file)
    {
        FileCheck.check(file, true);
        final ChronicleMap<byte[], byte[]> map;
        try
        {
            map = builder(1, 1).createPersistedTo(file.toFile());
        }
        catch (final IOException | RuntimeException ex)
        {
            throw new FloodgateFileException(file, "cannot be mapped as a Floodgate table: " + ex.getMessage(), ex);
        }
        try
        {
            final long mapped = ((VanillaChronicleHash<?, ?, ?, ?>)map).dataStoreSize();
            final long size = Files.size(file);
            if (size < mapped)
            {
                throw new FloodgateFileException(file, "truncated: " + size + " bytes, the table needs " + mapped,
                    null);
            }
            final TableGuard guard = TableGuard.locate((VanillaChronicleHash<?, ?, ?, ?>)map);
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
            return new QuotaTable(file, map, guard, header);
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
        if (!guard.acquire(TOOL_TIMEOUT_NANOS))
        {
            throw new TableBusyException(file + ": process " + guard.ownerVolatile() + " holds the table guard");
        }
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(HEADER_KEY))
        {
            lock(file, c.readLock());
            final MapEntry<byte[], byte[]> entry = c.entry();
            if (entry == null || entry.value().size() < FileHeader.CAPACITY_OFFSET)
            {
                return null;
            }
            return wrap(entry.value());
        }
        finally
        {
            guard.release();
        }
    }

    private static void lock(final Path file, final net.openhft.chronicle.hash.locks.InterProcessLock lock)
    {
        try
        {
            // Under the guard nobody else holds Chronicle locks; a wait here means an unforeseen state, which
            // must surface as an error, never as Chronicle's 60 s spin.
            if (!lock.tryLock(1, TimeUnit.SECONDS))
            {
                throw new TableBusyException(file + ": a segment lock stayed held under the table guard");
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new TableBusyException(file + ": interrupted while locking a segment");
        }
    }

    private void enter(final long timeoutNanos)
    {
        if (!guard.acquire(timeoutNanos))
        {
            throw new TableBusyException(file + ": process " + guard.ownerVolatile() + " held the table guard for " +
                TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
        }
    }

    private static UnsafeBuffer wrap(final Data<byte[]> value)
    {
        return new UnsafeBuffer(value.bytes().addressForRead(value.offset()), (int)value.size());
    }

    private static ChronicleMapBuilder<byte[], byte[]> builder(final long capacity, final int shards)
    {
        // Buckets and blocked counters take 2 lines, windows 2 + shards; assume a mix weighted to buckets.
        final double averageValue = (2.0 * EntryLayout.HEADER_LENGTH + EntryLayout.valueLength(
            EntryLayout.KIND_WINDOW, shards)) / 3.0;
        return ChronicleMapBuilder.of(byte[].class, byte[].class)
            .name("floodgate")
            .constantKeySizeBySample(new byte[KeyHasher.KEY_LENGTH])
            .averageValueSize(averageValue)
            // small tables are sized for MIN_SIZED_ENTRIES: a segment tier must hold the file's record whole
            .entries(Math.max(capacity, MIN_SIZED_ENTRIES) + 1)
            .minSegments(MIN_SEGMENTS) // spread locks and hostile keys even in a small table
            .actualChunkSize(CHUNK)
            .maxChunksPerEntry(2 + FileHeader.LENGTH / CHUNK + (EntryLayout.SHARDS_OFFSET + 4096 * 64) / CHUNK)
            .entryAndValueOffsetAlignment(CHUNK)
            .checksumEntries(false)   // direct atomic writes would make checksums stale; see NOTES.md
            .maxBloatFactor(1.5)
            .sparseFile(false);
    }

    private static void create(
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

    private static Object inode(final Path file)
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

    private static void replaceStale(
        final Path file,
        final Object staleInode,
        final long capacity,
        final int shards,
        final boolean groupReadable,
        final long nowNanos)
    {
        try
        {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE);
                FileLock ignored = channel.lock())
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
            }
        }
        catch (final IOException ex)
        {
            throw new FloodgateFileException(file, "from a previous boot cannot be replaced: " + describe(ex), ex);
        }
    }

    private static String describe(final Exception ex)
    {
        return ex instanceof java.nio.file.AccessDeniedException ? "permission denied (" + ex.getMessage() + ")" :
            String.valueOf(ex.getMessage() == null ? ex : ex.getMessage());
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

    /**
     * Finds an entry, inserting it when absent and reviving it when the janitor has tombstoned it.
     *
     * @param kind         the entry kind.
     * @param action       the action.
     * @param identifier   the identifier.
     * @param limit        the limit a new entry records.
     * @param windowMs     the window a new entry records.
     * @param version      the policy version a new entry's units belong to.
     * @param initialState the state word of a new entry.
     * @param nowNanos     the monotonic time.
     * @param upgrade      run on an existing entry under the update lock (may convert its units); or null.
     * @return the located entry.
     * @throws TableFullException when the table cannot take a new entry.
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
        final Upgrade upgrade) throws TableFullException
    {
        final byte[] key = hasher.key(identifier, action, kind);
        enter(CHECK_TIMEOUT_NANOS);
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key))
        {
            lock(file, c.updateLock());
            MapEntry<byte[], byte[]> entry = c.entry();
            if (entry == null)
            {
                if (header.counterVolatile(FileHeader.ENTRY_COUNT_OFFSET) >= capacity)
                {
                    throw new TableFullException(file + " holds " + capacity + " entries");
                }
                final byte[] value = EntryLayout.newValue(kind, action, limit, windowMs, nowNanos,
                    header.nextGeneration(), version, initialState, identifier, shards);
                try
                {
                    c.absentEntry().doInsert(c.wrapValueAsData(value));
                }
                catch (final IllegalStateException ex)
                {
                    // Chronicle Map ran out of segment tiers before the entry count reached capacity
                    throw new TableFullException(file + ": " + ex.getMessage());
                }
                header.addCounter(FileHeader.ENTRY_COUNT_OFFSET, 1);
                entry = c.entry();
            }
            final UnsafeBuffer buffer = wrap(entry.value());
            long generation = buffer.getLongVolatile(EntryLayout.GENERATION_OFFSET);
            if (generation == EntryLayout.TOMBSTONE)
            {
                generation = header.nextGeneration();
                buffer.putLongRelease(EntryLayout.GENERATION_OFFSET, generation);
                header.addCounter(FileHeader.REVIVED_OFFSET, 1);
            }
            if (upgrade != null)
            {
                upgrade.apply(buffer, header);
                generation = buffer.getLongVolatile(EntryLayout.GENERATION_OFFSET);
            }
            return new Resolved(buffer, generation, buffer.getLong(EntryLayout.LIMIT_OFFSET),
                buffer.getLong(EntryLayout.WINDOW_MS_OFFSET), buffer.getInt(EntryLayout.UNITS_VERSION_OFFSET));
        }
        finally
        {
            guard.release();
        }
    }

    /**
     * Reads an entry under the segment's read lock.
     *
     * @param reader computes the result from the entry's value in the file.
     * @return the reader's result, or {@code absent} when there is no live entry.
     */
    public long readValue(final byte kind, final Action action, final CharSequence identifier,
        final java.util.function.ToLongFunction<UnsafeBuffer> reader, final long absent)
    {
        final byte[] key = hasher.key(identifier, action, kind);
        enter(TOOL_TIMEOUT_NANOS);
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key))
        {
            lock(file, c.readLock());
            final MapEntry<byte[], byte[]> entry = c.entry();
            if (entry == null)
            {
                return absent;
            }
            final UnsafeBuffer buffer = wrap(entry.value());
            return buffer.getLongVolatile(EntryLayout.GENERATION_OFFSET) == EntryLayout.TOMBSTONE ? absent :
                reader.applyAsLong(buffer);
        }
        finally
        {
            guard.release();
        }
    }

    /** Run by {@link #resolve} on a located, live entry under its segment's update lock. */
    @FunctionalInterface
    public interface Upgrade
    {
        /**
         * @param value  the entry's value in the file.
         * @param header the file's record (for a new generation).
         */
        void apply(UnsafeBuffer value, FileHeader header);
    }

    /** Called with an entry's value under its segment's write lock. */
    @FunctionalInterface
    public interface WriteLockedAction
    {
        /**
         * @param value the entry's value in the file.
         * @return true to remove the entry.
         */
        boolean apply(UnsafeBuffer value);
    }

    /**
     * Runs {@code action} on the entry under its segment's write lock, which excludes every locked reader and
     * writer in every process (but not lock-free checks).
     *
     * @param key    the entry's key.
     * @param action what to do.
     * @return 0 when absent, 1 when kept, 2 when removed.
     */
    public int withWriteLock(final byte[] key, final WriteLockedAction action)
    {
        enter(TOOL_TIMEOUT_NANOS);
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key))
        {
            lock(file, c.writeLock());
            final MapEntry<byte[], byte[]> entry = c.entry();
            if (entry == null)
            {
                return 0;
            }
            if (action.apply(wrap(entry.value())))
            {
                c.remove(entry);
                header.addCounter(FileHeader.ENTRY_COUNT_OFFSET, -1);
                return 2;
            }
            return 1;
        }
        finally
        {
            guard.release();
        }
    }

    /** Called with a copy of each quota entry. */
    @FunctionalInterface
    public interface EntryVisitor
    {
        /**
         * @param key   the entry's key (a fresh array).
         * @param value a copy of the entry's value, taken under the segment's update lock.
         */
        void visit(byte[] key, UnsafeBuffer value);
    }

    /**
     * Visits a copy of every quota entry (not the file's own record), one segment at a time: each segment is
     * copied under the guard and its update lock, then visited with no lock held. Checks on warm keys are never
     * blocked; cold operations wait at most for one segment's copy.
     *
     * @param visitor receives each entry.
     */
    public void forEachEntry(final EntryVisitor visitor)
    {
        final List<byte[]> keys = new ArrayList<>();
        final List<UnsafeBuffer> values = new ArrayList<>();
        for (int segment = 0; segment < map.segments(); segment++)
        {
            keys.clear();
            values.clear();
            enter(TOOL_TIMEOUT_NANOS);
            try
            {
                scanSegment(segment, entry ->
                {
                    final byte[] keyBytes = entry.key().get();
                    if (keyBytes[KeyHasher.KIND_INDEX] != 0)
                    {
                        final Data<byte[]> value = entry.value();
                        final byte[] copy = new byte[(int)value.size()];
                        value.bytes().read(value.offset(), copy, 0, copy.length);
                        keys.add(keyBytes.clone());
                        values.add(new UnsafeBuffer(copy));
                    }
                });
            }
            finally
            {
                guard.release();
            }
            // visit outside the guard: a visitor may call back into the table
            for (int i = 0; i < keys.size(); i++)
            {
                visitor.visit(keys.get(i), values.get(i));
            }
        }
    }

    /** Called with each quota entry in place, under the guard and the segment's update lock. */
    @FunctionalInterface
    public interface InPlaceVisitor
    {
        /**
         * Must be quick and must not call back into the table. The buffers are reused for the next entry:
         * copy what must outlive the call.
         *
         * @param key   the entry's 16 key bytes, in the file.
         * @param value the entry's value, in the file.
         */
        void visit(UnsafeBuffer key, UnsafeBuffer value);
    }

    /**
     * Visits every quota entry in place, without copying or allocating, one segment at a time under the guard
     * and the segment's update lock (the janitor's scan: it runs often and must not make garbage).
     *
     * @param visitor receives each entry.
     */
    public void forEachEntryInPlace(final InPlaceVisitor visitor)
    {
        final UnsafeBuffer key = new UnsafeBuffer(0, 0);
        final UnsafeBuffer value = new UnsafeBuffer(0, 0);
        for (int segment = 0; segment < map.segments(); segment++)
        {
            enter(TOOL_TIMEOUT_NANOS);
            try
            {
                scanSegment(segment, entry ->
                {
                    final Data<byte[]> k = entry.key();
                    key.wrap(k.bytes().addressForRead(k.offset()), KeyHasher.KEY_LENGTH);
                    if (key.getByte(KeyHasher.KIND_INDEX) != 0)
                    {
                        final Data<byte[]> v = entry.value();
                        value.wrap(v.bytes().addressForRead(v.offset()), (int)v.size());
                        visitor.visit(key, value);
                    }
                });
            }
            finally
            {
                guard.release();
            }
        }
    }

    /** Iterates one segment; call under the guard. */
    private void scanSegment(final int segment, final Consumer<? super MapEntry<byte[], byte[]>> action)
    {
        try (MapSegmentContext<byte[], byte[], ?> c = map.segmentContext(segment))
        {
            c.forEachSegmentEntry(action);
        }
        catch (final IllegalStateException ex)
        {
            // Chronicle throws this after visiting every entry of the tier, when its counter says more exist
            if (!String.valueOf(ex.getMessage()).contains("Size diverged"))
            {
                throw ex;
            }
            repairTierCount(segment, ex);
        }
    }

    /**
     * A process killed inside an insert can leave the segment's entry counter ahead of its hash lookup (the
     * counter is bumped before the slot is written). The guard is ours, so nobody else is inside Chronicle: when
     * the segment has a single tier (its counter lives in the segment header, where we can reach it), set the
     * counter to what the iteration found. With chained tiers the counter is out of reach: the scan skips the
     * rest of that segment (its entries stay correct for checks; the janitor and tools miss its later tiers
     * until the file is recovered offline), and the event is counted, never thrown at the caller.
     */
    private void repairTierCount(final int segment, final IllegalStateException ex)
    {
        final long address = ((VanillaChronicleHash<?, ?, ?, ?>)map).segmentHeaderAddress(segment);
        final Matcher extra = Pattern.compile("there should be (\\d+) more").matcher(ex.getMessage());
        if (BigSegmentHeader.INSTANCE.nextTierIndex(address) != 0 || !extra.find())
        {
            guard.countTierDivergence();
            LOG.log(System.Logger.Level.WARNING, "{0}: segment {1}''s entry count diverged in a chained tier (a " +
                "process died inside an insert); scans skip the rest of that segment until the file is recovered " +
                "offline", file, segment);
            return;
        }
        final long entries = BigSegmentHeader.INSTANCE.entries(address);
        BigSegmentHeader.INSTANCE.entries(address, entries - Long.parseLong(extra.group(1)));
        guard.countTierRepair();
        LOG.log(System.Logger.Level.WARNING, "{0}: segment {1}''s entry count was {2}, {3} more than its entries " +
            "(a process died inside an insert); repaired", file, segment, entries, extra.group(1));
    }

    /**
     * @param key a key.
     * @return true when an entry exists under it and is not tombstoned.
     */
    public boolean isLive(final byte[] key)
    {
        enter(TOOL_TIMEOUT_NANOS);
        try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key))
        {
            lock(file, c.readLock());
            final MapEntry<byte[], byte[]> entry = c.entry();
            return entry != null &&
                wrap(entry.value()).getLongVolatile(EntryLayout.GENERATION_OFFSET) != EntryLayout.TOMBSTONE;
        }
        finally
        {
            guard.release();
        }
    }

    /** @return the guard every Chronicle Map lock of this file is taken under. */
    public TableGuard guard()
    {
        return guard;
    }

    /**
     * @return live and tombstoned entries per segment, for tools and the spread test; takes each segment's lock
     * in turn, under the guard.
     */
    public long[] segmentCounts()
    {
        final long[] counts = new long[map.segments()];
        for (int segment = 0; segment < counts.length; segment++)
        {
            enter(TOOL_TIMEOUT_NANOS);
            try (MapSegmentContext<byte[], byte[], ?> c = map.segmentContext(segment))
            {
                counts[segment] = c.size();
            }
            finally
            {
                guard.release();
            }
        }
        return counts;
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

    /** Unmaps the file. Addresses resolved from this table must not be used afterwards. */
    @Override
    public void close()
    {
        map.close();
    }
}
