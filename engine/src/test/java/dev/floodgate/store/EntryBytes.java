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

    /**
     * A view of {@code entry}'s memory whose first acquire load of the generation runs {@code hook} right after the
     * load: a check descheduled between its generation test and its compare-and-set, the moment the janitor's grace
     * period exists for.
     */
    public static Entry pausedAfterGenerationTest(final Entry entry, final Runnable hook)
    {
        final org.agrona.concurrent.UnsafeBuffer view = new org.agrona.concurrent.UnsafeBuffer(
            entry.value.addressOffset(), entry.value.capacity())
        {
            private boolean fired;

            @Override
            public long getLongAcquire(final int index)
            {
                final long value = super.getLongAcquire(index);
                if (index == EntryLayout.GENERATION_OFFSET && !fired)
                {
                    fired = true;
                    hook.run();
                }
                return value;
            }
        };
        return new Entry(view);
    }
}
