package dev.floodgate.door;

/**
 * This process's map from (identifier, action, kind) to {@link QuotaSlot}: a fixed-size, direct-mapped table,
 * so its heap is bounded whatever identifiers arrive, and a lookup is one array load and an identity or
 * content comparison, allocating nothing.
 *
 * <p>Lock-free and racy by design: any thread may replace any slot at any time. Slots are immutable (final
 * fields), so a reader sees a whole slot or none. A collision evicts; the evicted key's next check resolves it
 * again from the table (a cold path), which costs time but never correctness.
 */
final class QuotaCache
{
    private final QuotaSlot[] slots;
    private final int mask;

    /** @param size slots, rounded up to a power of two. */
    QuotaCache(final int size)
    {
        final int n = Integer.highestOneBit(Math.max(16, size - 1) << 1);
        this.slots = new QuotaSlot[n];
        this.mask = n - 1;
    }

    static int hash(final CharSequence identifier)
    {
        if (identifier instanceof String s)
        {
            return s.hashCode(); // cached in the String after its first use
        }
        int h = 0;
        for (int i = 0, n = identifier.length(); i < n; i++)
        {
            h = 31 * h + identifier.charAt(i);
        }
        return h;
    }

    int index(final int hash, final int kindAction)
    {
        final int h = (hash ^ kindAction * 0x9E3779B9) * 0x85EBCA6B;
        return (h ^ h >>> 15) & mask;
    }

    QuotaSlot get(final int index)
    {
        return slots[index];
    }

    void put(final int index, final QuotaSlot slot)
    {
        slots[index] = slot;
    }

    void clear()
    {
        java.util.Arrays.fill(slots, null);
    }
}
