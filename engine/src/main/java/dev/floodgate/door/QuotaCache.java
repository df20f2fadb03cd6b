package dev.floodgate.door;

/**
 * This process's map from (identifier, action, kind) to {@link QuotaSlot}: a fixed-size, two-way
 * set-associative table, so its heap is bounded whatever identifiers arrive, and a lookup is one or two array
 * loads and an identity or content comparison, allocating nothing.
 *
 * <p>The first way of a set is sticky: a new slot takes it only when it is empty or its entry is no longer
 * current (reaped, reset); otherwise the new slot takes the second way. So a hot key that settled first in its
 * set is not evicted by a stream of one-off keys hashing to the same set (measured: with a direct-mapped
 * cache, two colliding hot keys fell from about 7M to 0.5M checks per second).
 *
 * <p>Lock-free and racy by design: any thread may replace any slot at any time. Slots are immutable (final
 * fields), so a reader sees a whole slot or none. An eviction costs the evicted key one cold resolve, never
 * correctness.
 */
final class QuotaCache
{
    private final QuotaSlot[] slots;
    private final int mask;

    /** @param size slots, rounded up to a power of two (two per set). */
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

    /** @return the first slot of the key's set. */
    int index(final int hash, final int kindAction)
    {
        final int h = (hash ^ kindAction * 0x9E3779B9) * 0x85EBCA6B;
        return (h ^ h >>> 15) & mask & ~1;
    }

    /** @return the key's slot from its set, or null. */
    QuotaSlot get(final int index, final CharSequence identifier, final int hash, final int kindAction)
    {
        final QuotaSlot first = slots[index];
        if (first != null && first.matches(identifier, hash, kindAction))
        {
            return first;
        }
        final QuotaSlot second = slots[index + 1];
        return second != null && second.matches(identifier, hash, kindAction) ? second : null;
    }

    /** Stores a freshly resolved slot in its set: the sticky first way when free or stale, else the second. */
    void put(final int index, final QuotaSlot slot)
    {
        final QuotaSlot first = slots[index];
        if (first == null || !first.isCurrent() ||
            first.kindAction == slot.kindAction && first.identifier.equals(slot.identifier))
        {
            slots[index] = slot;
        }
        else
        {
            slots[index + 1] = slot;
        }
    }

}
