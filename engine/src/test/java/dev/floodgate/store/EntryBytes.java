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

    /** Writes the kind byte of an entry in place: a damaged entry, for a reader to skip. */
    public static void putKind(final Entry entry, final byte kind)
    {
        entry.value.putByte(EntryLayout.KIND_OFFSET, kind);
    }

    /** Writes the action byte of an entry in place: a damaged entry, for a reader to skip. */
    public static void putAction(final Entry entry, final byte action)
    {
        entry.value.putByte(EntryLayout.ACTION_OFFSET, action);
    }

    /** @return the offset of a bucket's TAT word in its value, for a test that hooks its loads. */
    public static int stateOffset()
    {
        return EntryLayout.STATE_OFFSET;
    }

    /** @return the offset of a conversion's side record word in a bucket's value, for a test that hooks its loads. */
    public static int conversionTatOffset()
    {
        return EntryLayout.CONVERSION_TAT_OFFSET;
    }
}
