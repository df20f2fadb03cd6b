package dev.floodgate.store;

import org.agrona.concurrent.AtomicBuffer;

/** What only Chronicle Map does to an entry's memory: hand it to a new entry of another kind. For tests. */
public final class EntryBytes
{
    private EntryBytes()
    {
    }

    /** Writes the kind byte, as a new entry's insertion in reused memory would. */
    public static void putKind(final AtomicBuffer value, final byte kind)
    {
        value.putByte(EntryLayout.KIND_OFFSET, kind);
    }
}
