package dev.floodgate.reader;

import dev.floodgate.store.KeyHasher;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Walks every entry of a read-only mapped table: each segment's chain of tiers, each tier's hash lookup slots,
 * each slot's entry. Takes no lock and writes nothing, so it races the writers: an entry may be inserted,
 * removed or moved by a backward-shift deletion in the hash lookup while it is walked. Each entry is therefore
 * decoded from a copy and kept only when its slot and key still read the same afterwards; anything that
 * fails a bound or a check is skipped and counted, never thrown. Not thread-safe (one instance per scan).
 */
final class TableScan
{
    private static final int MAX_STOP_BIT_BYTES = 5;

    /** Decodes one entry; returns null to skip it. */
    @FunctionalInterface
    interface Decoder<T>
    {
        /**
         * @param key   the entry's 16 key bytes (a copy).
         * @param value a view of the value in the file; only valid during the call.
         * @return the decoded entry, or null when it is not one the caller wants or cannot be read.
         */
        T decode(byte[] key, UnsafeBuffer value);
    }

    /** Receives each decoded entry that was still in place after decoding. */
    @FunctionalInterface
    interface Sink<T>
    {
        /** @param entry a decoded entry. @return false to stop the walk. */
        boolean accept(T entry);
    }

    private final ReadOnlyMapping mapping;
    private final ChronicleLayout layout;
    private final byte[] key = new byte[KeyHasher.KEY_LENGTH];
    private final byte[] recheck = new byte[KeyHasher.KEY_LENGTH];
    private final UnsafeBuffer value = new UnsafeBuffer(0, 0);
    private long skipped;

    TableScan(final ReadOnlyMapping mapping, final ChronicleLayout layout)
    {
        this.mapping = mapping;
        this.layout = layout;
    }

    /** @return entries or tiers skipped because they were torn by a writer, out of the mapping, or damaged. */
    long skipped()
    {
        return skipped;
    }

    /** Counts an entry the sink found unreadable (decoded, still in place, not whole): skipped. @return true. */
    boolean skip()
    {
        skipped++;
        return true;
    }

    /**
     * @param decoder decodes each entry.
     * @param sink    receives each entry decoded and still in place.
     * @param <T>     the decoded type.
     */
    <T> void forEach(final Decoder<T> decoder, final Sink<T> sink)
    {
        forEach(0, layout.segments, decoder, sink);
    }

    /**
     * As {@link #forEach(Decoder, Sink)}, over segments {@code from} (inclusive) to {@code to} (exclusive).
     *
     * @return false when the sink stopped the walk.
     */
    <T> boolean forEach(final int from, final int to, final Decoder<T> decoder, final Sink<T> sink)
    {
        for (int segment = from; segment < to; segment++)
        {
            final UnsafeBuffer header = mapping.view(layout.segmentHeader(segment), layout.segmentHeaderSize,
                "segment header " + segment);
            long tierOffset = layout.firstTier(segment);
            long next = header.getLongVolatile(ChronicleLayout.segmentNextTier());
            for (int hops = 0; ; hops++)
            {
                final UnsafeBuffer tier = mapping.view(tierOffset, layout.tierSize, "a tier of segment " + segment);
                if (!walkTier(tier, tierOffset, decoder, sink))
                {
                    return false;
                }
                if (next == 0)
                {
                    break;
                }
                tierOffset = layout.extraTier(next);
                if (hops >= layout.maxExtraTiers || tierOffset < 0 || !mapping.contains(tierOffset, layout.tierSize))
                {
                    skipped++; // a tier chained after this mapping was made, or a damaged chain
                    break;
                }
                final UnsafeBuffer chained = mapping.view(tierOffset, layout.tierSize, "a chained tier");
                if (chained.getIntVolatile(layout.tierSegment()) != segment)
                {
                    skipped++;
                    break;
                }
                next = chained.getLongVolatile(layout.tierNext());
            }
        }
        return true;
    }

    private <T> boolean walkTier(final UnsafeBuffer tier, final long tierOffset, final Decoder<T> decoder,
        final Sink<T> sink)
    {
        for (int slot = 0; slot < layout.slots; slot++)
        {
            final long word = slotWord(tier, slot);
            if (word == 0)
            {
                continue;
            }
            final long chunk = (word >>> layout.keyBits) & layout.valueMask;
            final long entry = layout.entrySpaceOffset + chunk * ChronicleLayout.CHUNK;
            if (chunk >= layout.chunksPerTier || entry + key.length + MAX_STOP_BIT_BYTES > tier.capacity())
            {
                skipped++;
                continue;
            }
            tier.getBytes((int)entry, key);
            long size = 0;
            int sizeBytes = 0;
            int b;
            do
            {
                b = tier.getByte((int)entry + key.length + sizeBytes);
                size |= (long)(b & 0x7F) << (7 * sizeBytes);
                sizeBytes++;
            }
            while ((b & 0x80) != 0 && sizeBytes < MAX_STOP_BIT_BYTES);
            final long valueStart = align(tierOffset + entry + key.length + sizeBytes) - tierOffset;
            if ((b & 0x80) != 0 || size <= 0 || valueStart + size > tier.capacity())
            {
                skipped++;
                continue;
            }
            value.wrap(tier, (int)valueStart, (int)size);
            final T decoded = decoder.decode(key, value);
            tier.getBytes((int)entry, recheck);
            if (slotWord(tier, slot) != word || !java.util.Arrays.equals(key, recheck))
            {
                skipped++; // removed, moved or replaced while it was read
                continue;
            }
            if (decoded != null && !sink.accept(decoded))
            {
                return false;
            }
        }
        return true;
    }

    private long slotWord(final UnsafeBuffer tier, final int slot)
    {
        return layout.slotSize == 4 ? tier.getIntVolatile(slot * 4) & 0xFFFF_FFFFL : tier.getLongVolatile(slot * 8);
    }

    private static long align(final long offset)
    {
        return (offset + ChronicleLayout.ALIGNMENT - 1) & -ChronicleLayout.ALIGNMENT;
    }
}
