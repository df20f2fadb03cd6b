package dev.floodgate.store;

import net.openhft.chronicle.core.OS;
import net.openhft.chronicle.hash.impl.BigSegmentHeader;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.hash.impl.util.jna.PosixFallocate;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;

/**
 * What Floodgate knows of Chronicle Map 2026.1's segment tiers: whether an insert will stay in a segment's first
 * tier, so that it needs no tier allocation (and so no allocation guard, see {@link TableGuard}), and whether the file
 * can back the tiers an allocation maps.
 */
final class TierSpace
{
    private TierSpace()
    {
    }

    /**
     * Whether an insert of {@code valueLength} bytes into {@code segment} is sure to fit its first tier, so that
     * Chronicle will not take its global lock to allocate a tier: the allocation guard is then not needed, and a
     * process stopped inside such an insert holds up only its segment. It mirrors Chronicle 2026.1's
     * {@code allocReturnCode} on the first tier (the tier an absent key's insert tries first): room in the hash
     * lookup, and a run of free chunks from the lowest possibly free one, asking one chunk more than the entry
     * needs so that any difference in how the entry's size is rounded errs towards taking the guard. Call under
     * the segment's guard (nobody else changes the tier meanwhile).
     *
     * @param map         the mapped table.
     * @param segment     a segment whose guard this thread holds.
     * @param valueLength the new entry's value length.
     * @return true when the insert cannot allocate a tier.
     */
    static boolean firstTierFits(final VanillaChronicleHash<?, ?, ?, ?> map, final int segment, final int valueLength)
    {
        final long header = map.segmentHeaderAddress(segment);
        final BigSegmentHeader h = BigSegmentHeader.INSTANCE;
        final long chunks = 2 + (valueLength + 63) / 64; // key and sizes in one chunk, the value aligned, +1 spare
        final long lowest = h.lowestPossiblyFreeChunk(header);
        final long tierChunks = map.actualChunksPerSegmentTier;
        if (h.entries(header) >= map.maxEntriesPerHashLookup - 1 || lowest + chunks > tierChunks)
        {
            return false;
        }
        final long freeList = map.tierIndexToBaseAddr(segment + 1) + map.tierHashLookupOuterSize +
            VanillaChronicleHash.TIER_COUNTERS_AREA_SIZE;
        long run = 0;
        for (long chunk = lowest; chunk < tierChunks; chunk++)
        {
            final long word = OS.memory().readLong(freeList + 8 * (chunk >>> 6));
            if ((word & (1L << chunk)) == 0)
            {
                if (++run == chunks)
                {
                    return true;
                }
            }
            else
            {
                run = 0;
            }
        }
        return false;
    }

    /**
     * Whether the file has room for the tier bulk an allocation is about to map. Chronicle grows the file
     * ({@code ftruncate}) before it asks the file system for the bulk's blocks ({@code fallocate}); when there is no
     * room (a full tmpfs) the allocation fails with the file grown but those pages not backed, and the next
     * allocation, finding the file long enough, maps them without asking and writes there: a SIGBUS, thrown into the
     * check as {@code InternalError} (found by review). So the tail an allocation left behind is backed here first,
     * or the insert is refused. Call under the allocation guard (nobody else grows the file meanwhile).
     *
     * @param inode the mapped file's inode: a table removed from under its processes is left to Chronicle, as before.
     * @return false when the file system cannot back the tail (the caller answers as for a full table).
     */
    static boolean tailBacked(final VanillaChronicleHash<?, ?, ?, ?> map, final Path file, final Object inode)
    {
        if (map.globalMutableState().getFirstFreeTierIndex() != 0)
        {
            // a free tier is mapped already: Chronicle grows the file only when none is left (allocateTier), and a
            // failed growth leaves none, so this memory read spares most inserts of a full first tier the stat below
            return true;
        }
        final long allocated = map.globalMutableState().getDataStoreSize();
        try
        {
            final Map<String, Object> found = Files.readAttributes(file, "unix:ino,size");
            final long size = ((Number)found.get("size")).longValue();
            if (!inode.equals(found.get("ino")) || size - allocated <= OS.mapAlignment())
            {
                return true; // no tail (only the last page's rounding), or not the mapped file
            }
            // another descriptor of the table, closed again, as FileCheck's: POSIX drops this process's locks on the
            // file with it, of which Chronicle's shared one only keeps Chronicle's offline recovery out
            try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
            {
                PosixFallocate.fallocate(raf.getFD(), allocated, size - allocated);
            }
            return true;
        }
        catch (final NoSuchFileException removed)
        {
            return true; // removed from under its processes: left to Chronicle, as before
        }
        catch (final IOException | RuntimeException ex)
        {
            return false;
        }
    }
}
