package dev.floodgate.reader;

import dev.floodgate.FloodgateFileException;
import dev.floodgate.store.KeyHasher;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Chronicle Map 2026.1's on-disk layout of a Floodgate table, read without Chronicle Map (which can only map
 * read-write) and without any of its locks. From Chronicle Map's {@code spec/3-memory-layout.md}:
 *
 * <pre>
 *  0        xxHash64 (r39) of the bytes from 8 to the end of the header text
 *  8        size word (32): bit 31 set while the creator has not finished, bit 30 metadata, low 30 the length
 *  12       the header: the map's immutable configuration as Chronicle YAML text (fields parsed below)
 *  H        global mutable state, H = the header's end rounded up to 64:
 *             H+0 lock (64) | H+8 extra tier bulks (24) | H+11 first free tier (40) | H+16 extra tiers in
 *             use (40) | H+21 segment headers offset (32) | H+25 data store size (64)
 *  S - 64   the guard line (see {@code GuardRegion}), S = the segment headers offset (page aligned)
 *  S        segment headers, segmentHeaderSize each: lock (64) | entries (32) | lowest free chunk (32) |
 *             next tier index (64), 1-based, 0 for none
 *  M        main segments area, M = S + segments x segmentHeaderSize: one tier per segment, tierSize each
 *  M + segments x tierSize
 *           extra tier bulks, tierBulkSizeInBytes each: tierBulkInnerOffsetToTiers, then tiersInBulk tiers
 *
 *  Tier:    hash lookup: tierHashLookupCapacity slots of tierHashLookupSlotSize bytes; 0 is empty, else
 *             key bits (low) | chunk index (next valueBits bits)
 *           tier counters (64 bytes): next tier index (64) | previous tier index (64) | lowest free (64) |
 *             segment index (32) | order in the chain (32) | entries (32)
 *           free list bits, tierFreeListOuterSize bytes
 *           entry space: tierEntrySpaceInnerOffset, then actualChunksPerSegmentTier chunks of chunkSize
 *  Entry:   key (16 bytes: constant size, no size prefix) | value size (stop-bit) | padding to the value
 *             alignment, by file offset (the mapping is page aligned) | value
 * </pre>
 *
 * Every builder setting Floodgate relies on is checked when the layout is read, and a file that differs is
 * refused. Immutable.
 */
final class ChronicleLayout
{
    private static final int SIZE_WORD_OFFSET = 8;
    private static final int TEXT_OFFSET = 12;
    private static final int MAX_HEADER = 16 * 1024;
    private static final int GLOBAL_STATE_VALUE = 8;
    private static final int EXTRA_BULKS = GLOBAL_STATE_VALUE;
    private static final int SEGMENT_HEADERS_OFFSET = GLOBAL_STATE_VALUE + 13;
    private static final int SEGMENT_NEXT_TIER = 16;
    private static final int TIER_COUNTERS_LENGTH = 64;
    private static final int TIER_NEXT = 0;
    private static final int TIER_SEGMENT = 24;
    static final int CHUNK = 64;
    static final int ALIGNMENT = 64;

    final int segments;
    final int chunksPerTier;
    final int segmentHeaderSize;
    final int slotSize;
    final int keyBits;
    final long valueMask;
    final int slots;
    final int hashLookupOuterSize;
    final int entrySpaceOffset;
    final int tierSize;
    final int maxExtraTiers;
    final long tierBulkSize;
    final long tierBulkInnerOffset;
    final long tiersInBulk;
    final int log2TiersInBulk;
    final long segmentHeadersOffset;
    final long segmentsOffset;
    final long mainEnd;
    final int extraBulks;

    private ChronicleLayout(final ReadOnlyMapping mapping, final String text, final long headerEnd)
    {
        final Path file = new Path(mapping);
        segments = file.intField(text, "actualSegments", 1, 1 << 20);
        chunksPerTier = file.intField(text, "actualChunksPerSegmentTier", 1, Integer.MAX_VALUE);
        segmentHeaderSize = file.intField(text, "segmentHeaderSize", 32, 1 << 16);
        slotSize = file.intField(text, "tierHashLookupSlotSize", 4, 8);
        keyBits = file.intField(text, "tierHashLookupKeyBits", 1, 62);
        final int valueBits = file.intField(text, "tierHashLookupValueBits", 1, 62);
        slots = file.intField(text, "tierHashLookupCapacity", 1, ReadOnlyMapping.MAX_VIEW);
        hashLookupOuterSize = file.intField(text, "tierHashLookupOuterSize", 1, ReadOnlyMapping.MAX_VIEW);
        final int freeListOuterSize = file.intField(text, "tierFreeListOuterSize", 0, ReadOnlyMapping.MAX_VIEW);
        final int entrySpaceInnerOffset = file.intField(text, "tierEntrySpaceInnerOffset", 0, ReadOnlyMapping.MAX_VIEW);
        tierSize = file.intField(text, "tierSize", 1, ReadOnlyMapping.MAX_VIEW);
        maxExtraTiers = file.intField(text, "maxExtraTiers", 0, Integer.MAX_VALUE);
        tierBulkSize = file.longField(text, "tierBulkSizeInBytes");
        tierBulkInnerOffset = file.longField(text, "tierBulkInnerOffsetToTiers");
        tiersInBulk = file.longField(text, "tiersInBulk");
        log2TiersInBulk = file.intField(text, "log2TiersInBulk", 0, 40);
        file.require(file.intField(text, "chunkSize", 1, Integer.MAX_VALUE) == CHUNK, "chunk size is not " + CHUNK);
        file.require(file.intField(text, "alignment", 1, Integer.MAX_VALUE) == ALIGNMENT,
            "value alignment is not " + ALIGNMENT);
        file.require(slotSize == 4 || slotSize == 8, "hash lookup slots of " + slotSize + " bytes");
        file.require(keyBits + valueBits <= slotSize * 8, "hash lookup bits exceed its slot");
        file.require((long)slots * slotSize <= hashLookupOuterSize, "hash lookup larger than its area");
        valueMask = (1L << valueBits) - 1;
        entrySpaceOffset = hashLookupOuterSize + TIER_COUNTERS_LENGTH + freeListOuterSize + entrySpaceInnerOffset;
        file.require((long)entrySpaceOffset + (long)chunksPerTier * CHUNK <= tierSize, "tier layout exceeds the tier");
        file.require(tiersInBulk == 1L << log2TiersInBulk && tierBulkSize >= tierBulkInnerOffset + tiersInBulk * tierSize,
            "inconsistent tier bulk layout");

        final long globalState = (headerEnd + 63) & ~63L;
        final UnsafeBuffer state = mapping.view(globalState, 64, "the global mutable state");
        extraBulks = (state.getShort(EXTRA_BULKS) & 0xFFFF) | (state.getByte(EXTRA_BULKS + 2) & 0xFF) << 16;
        segmentHeadersOffset = state.getInt(SEGMENT_HEADERS_OFFSET) & 0xFFFF_FFFFL;
        file.require(segmentHeadersOffset >= globalState + 128 && segmentHeadersOffset % 64 == 0,
            "segment headers offset " + segmentHeadersOffset);
        segmentsOffset = segmentHeadersOffset + (long)segments * segmentHeaderSize;
        mainEnd = segmentsOffset + (long)segments * tierSize;
        if (mainEnd > mapping.size())
        {
            throw new FloodgateFileException(mapping.file(), "truncated: " + mapping.size() + " bytes, its header " +
                "describes at least " + mainEnd, null);
        }
    }

    /**
     * Reads and checks the header of a mapped file.
     *
     * @param mapping the file.
     * @return its layout.
     * @throws FloodgateFileException naming the file when it is not a Floodgate table or is damaged.
     */
    static ChronicleLayout read(final ReadOnlyMapping mapping)
    {
        if (!mapping.contains(0, TEXT_OFFSET))
        {
            throw new FloodgateFileException(mapping.file(), "only " + mapping.size() + " bytes: truncated or not " +
                "a Floodgate table", null);
        }
        final UnsafeBuffer prefix = mapping.view(0, TEXT_OFFSET, "the header");
        final int sizeWord = prefix.getInt(SIZE_WORD_OFFSET);
        final int textLength = sizeWord & ((1 << 30) - 1);
        if (sizeWord <= 0 || textLength > MAX_HEADER)
        {
            throw new FloodgateFileException(mapping.file(), "no valid table header (size word 0x" +
                Integer.toHexString(sizeWord) + "): not a Floodgate table, or its creator died", null);
        }
        if (!mapping.contains(0, TEXT_OFFSET + textLength))
        {
            throw new FloodgateFileException(mapping.file(), "truncated: " + mapping.size() + " bytes, shorter " +
                "than its own header", null);
        }
        final byte[] header = new byte[TEXT_OFFSET + textLength];
        mapping.view(0, header.length, "the header").getBytes(0, header);
        final ByteBuffer wrapped = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
        if (LongHashFunction.xx_r39().hashBytes(wrapped, SIZE_WORD_OFFSET, textLength + 4) != wrapped.getLong(0))
        {
            throw new FloodgateFileException(mapping.file(), "header checksum mismatch: not a Floodgate table, or " +
                "damaged", null);
        }
        final String text = new String(header, TEXT_OFFSET, textLength, StandardCharsets.UTF_8);
        if (!text.contains("VanillaChronicleMap") || !text.contains("keyClass: !type byte[]") ||
            !text.contains("valueClass: !type byte[]") || !text.contains("ConstantSizeMarshaller") ||
            !text.contains("constantSize: " + KeyHasher.KEY_LENGTH) || !text.contains("StopBitSizeMarshaller") ||
            !text.contains("checksumEntries: false"))
        {
            throw new FloodgateFileException(mapping.file(), "a table of another format, not a Floodgate table " +
                "(16-byte keys, stop-bit value sizes, no checksums expected)", null);
        }
        return new ChronicleLayout(mapping, text, TEXT_OFFSET + textLength);
    }

    /**
     * @param key a key.
     * @return the segment Chronicle Map keeps it in (its power-of-two hash splitting), or -1 when the segment
     * count is not a power of two.
     */
    int homeSegment(final byte[] key)
    {
        return Integer.bitCount(segments) != 1 ? -1 :
            (int)LongHashFunction.xx_r39().hashBytes(key) & (segments - 1);
    }

    /** @param segment a segment. @return the file offset of its first tier. */
    long firstTier(final int segment)
    {
        return segmentsOffset + (long)segment * tierSize;
    }

    /** @param segment a segment. @return the file offset of its header. */
    long segmentHeader(final int segment)
    {
        return segmentHeadersOffset + (long)segment * segmentHeaderSize;
    }

    /** @return the offset of the next-tier word in a segment header. */
    static int segmentNextTier()
    {
        return SEGMENT_NEXT_TIER;
    }

    /** @return the offset, in a tier, of its next-tier word (chained tiers only). */
    int tierNext()
    {
        return hashLookupOuterSize + TIER_NEXT;
    }

    /** @return the offset, in a tier, of the index of the segment it belongs to. */
    int tierSegment()
    {
        return hashLookupOuterSize + TIER_SEGMENT;
    }

    /**
     * @param tierIndex a 1-based tier index past the main segments area.
     * @return its file offset, or -1 when it is not in an allocated bulk.
     */
    long extraTier(final long tierIndex)
    {
        final long extra = tierIndex - 1 - segments;
        if (extra < 0)
        {
            return -1;
        }
        final long bulk = extra >>> log2TiersInBulk;
        if (bulk >= extraBulks)
        {
            return -1;
        }
        return mainEnd + bulk * tierBulkSize + tierBulkInnerOffset + (extra & (tiersInBulk - 1)) * tierSize;
    }

    /** Names the file in the messages of failed checks. */
    private record Path(ReadOnlyMapping mapping)
    {
        int intField(final String text, final String name, final int min, final int max)
        {
            final long value = longField(text, name);
            require(value >= min && value <= max, name + " " + value + " out of range [" + min + ", " + max + "]");
            return (int)value;
        }

        long longField(final String text, final String name)
        {
            final Matcher matcher = Pattern.compile("\\b" + name + ": (\\d{1,18})\\b").matcher(text);
            if (!matcher.find())
            {
                throw new FloodgateFileException(mapping.file(), "header lacks " + name + ": damaged or another " +
                    "format", null);
            }
            return Long.parseLong(matcher.group(1));
        }

        void require(final boolean condition, final String what)
        {
            if (!condition)
            {
                // the writer's words for such a file (TableOpener): a broker's open reads it here first
                throw new FloodgateFileException(mapping.file(), "has no Floodgate header: a table of another " +
                    "format (" + what + ")", null);
            }
        }
    }
}
