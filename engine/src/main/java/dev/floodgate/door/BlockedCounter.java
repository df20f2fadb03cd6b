package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;
import dev.floodgate.store.ShardWords;

/**
 * The blocked counter of an (identifier, action): where either door and a charge record a refusal in the file,
 * for {@code blockedCount}, {@code topBlocked} and the reader. Stateless; thread-safe.
 */
final class BlockedCounter
{
    static final int KIND = Entry.KIND_BLOCKED << 8;
    private static final long TOUCH_GRANULARITY_NANOS = 1_000_000_000L;

    private BlockedCounter()
    {
    }

    /**
     * Adds one refusal, resolving the counter again when it was reclaimed under the refusal, at most
     * {@link Doors#ATTEMPTS} times. A counter the table cannot give in time is counted by the resolver, and
     * the refusal itself stands.
     *
     * @param doors the shared state and prelude (the counter's slot).
     * @param now   monotonic ns, the counter's touch time.
     */
    static void add(final Doors doors, final CharSequence identifier, final int hash, final Action action,
        final long now)
    {
        final int kindAction = KIND | action.ordinal();
        for (int attempt = 0; attempt < Doors.ATTEMPTS; attempt++)
        {
            // after a reclaim the cached slot is known stale: straight to the table
            final QuotaSlot slot = attempt == 0 ?
                doors.slot(identifier, hash, kindAction, action, null, Doors.ANY_VERSION) :
                doors.resolve(identifier, hash, kindAction, action, null, Doors.ANY_VERSION);
            if (slot == null)
            {
                return;
            }
            if (addRefusal(slot.entry, slot.generation, ShardProbe.shard(ShardProbe.probe(), doors.shards), now))
            {
                return;
            }
            // reclaimed under this refusal: count it in the entry that replaced it
        }
    }

    /**
     * Adds one refusal to a blocked counter's shard and, at most once a second, stores the touch time: striped
     * so racing refusals from several CPUs add to different lines, and the generation line every check reads
     * stays shared instead of bouncing on each refusal. Both writes are generation-checked
     * ({@link ShardWords#addRefusalIfCurrent}, {@link Entry#touchIfCurrent}).
     *
     * @return false when the generation changed before the count landed (nothing written: resolve again).
     */
    static boolean addRefusal(final Entry entry, final long generation, final int shard, final long now)
    {
        if (!ShardWords.addRefusalIfCurrent(entry, generation, shard))
        {
            return false;
        }
        final long touched = entry.touchedVolatile();
        if (now - touched > TOUCH_GRANULARITY_NANOS)
        {
            entry.touchIfCurrent(generation, touched, now);
        }
        return true;
    }
}
