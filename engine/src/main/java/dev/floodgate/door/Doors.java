package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.Ticker;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.Resolved;
import dev.floodgate.store.TableBusyException;
import dev.floodgate.store.TableFullException;

/**
 * The two doors' check paths. A warm check costs one load of this process's slot, one acquire load of the
 * entry's generation, a clock read and one compare-and-set on the mapped file: no Chronicle Map lookup, no
 * lock, no allocation. A cold check (first sight of a key in this process, an evicted slot, or an entry the
 * janitor tombstoned) resolves the entry in the table under its segment lock and caches it.
 *
 * <p>Thread-safe: any number of threads in any number of processes may check at once.
 */
public final class Doors
{
    private static final int BUCKET = EntryLayout.KIND_BUCKET << 8;
    private static final int WINDOW = EntryLayout.KIND_WINDOW << 8;
    private static final int BLOCKED = EntryLayout.KIND_BLOCKED << 8;

    private final QuotaTable table;
    private final FloodgateConfig config;
    private final Ticker ticker;
    private final CoarseClock clock;
    private final QuotaCache cache;
    private final int shards;
    private final Runnable onTableFull;

    /**
     * @param table       the table.
     * @param config      limits for entries this process creates.
     * @param clock       the window door's clock.
     * @param onTableFull asked (without waiting) to reclaim idle entries when a check finds the table full.
     */
    public Doors(final QuotaTable table, final FloodgateConfig config, final CoarseClock clock,
        final Runnable onTableFull)
    {
        this.onTableFull = onTableFull;
        this.table = table;
        this.config = config;
        this.ticker = config.ticker();
        this.clock = clock;
        this.shards = table.shards();
        this.cache = new QuotaCache((int)Math.min(1 << 16, Math.max(1024, config.capacity())));
    }

    /**
     * Door 1: the exact token bucket.
     *
     * @param identifier who.
     * @param action     what.
     * @return {@link Floodgate#ADMITTED} or the retry-after in milliseconds.
     */
    public long checkBucket(final CharSequence identifier, final Action action)
    {
        final int hash = QuotaCache.hash(identifier);
        final int kindAction = BUCKET | action.ordinal();
        final int index = cache.index(hash, kindAction);
        QuotaSlot slot = cache.get(index);
        if (slot == null || !slot.matches(identifier, hash, kindAction) || !slot.isCurrent())
        {
            slot = resolve(identifier, hash, kindAction, action, index);
            if (slot == null)
            {
                return unavailable(action);
            }
        }
        final long now = ticker.nanos();
        final long result = slot.bucket.tryAcquire(slot.buffer, EntryLayout.STATE_OFFSET, now);
        if (result != Floodgate.ADMITTED)
        {
            recordRefusal(identifier, hash, action, now);
        }
        return result;
    }

    /**
     * Door 2: the per-CPU-sharded fixed window.
     *
     * @param identifier who.
     * @param action     what.
     * @return {@link Floodgate#ADMITTED} or the milliseconds to the window's end.
     */
    public long checkWindow(final CharSequence identifier, final Action action)
    {
        final int hash = QuotaCache.hash(identifier);
        final int kindAction = WINDOW | action.ordinal();
        final int index = cache.index(hash, kindAction);
        QuotaSlot slot = cache.get(index);
        if (slot == null || !slot.matches(identifier, hash, kindAction) || !slot.isCurrent())
        {
            slot = resolve(identifier, hash, kindAction, action, index);
            if (slot == null)
            {
                return unavailable(action);
            }
        }
        final long nowNanos = clock.nanos();
        final long nowMs = Math.floorDiv(nowNanos, 1_000_000L);
        final QuotaSlot.WindowCursor cursor = slot.cursor(nowMs);
        final ShardedWindow window = slot.window;
        final int active = window.activeShards();
        int probe = ShardProbe.probe();
        final int home = ShardProbe.shard(probe, active);
        for (int k = 0; k < active; k++)
        {
            final int shard = home + k < active ? home + k : home + k - active;
            final int offset = EntryLayout.shardOffset(shard);
            final long cap = window.cap(shard);
            int claimed;
            while ((claimed = ShardedWindow.tryClaim(slot.buffer, offset, cap, cursor.number())) < 0)
            {
                probe = ShardProbe.advance(probe); // lost a race: spread to another home next time
            }
            if (claimed > 0)
            {
                return Floodgate.ADMITTED;
            }
        }
        recordRefusal(identifier, hash, action, nowNanos);
        return window.retryAfterMs(nowMs, cursor.number());
    }

    private void recordRefusal(final CharSequence identifier, final int hash, final Action action, final long now)
    {
        final int kindAction = BLOCKED | action.ordinal();
        final int index = cache.index(hash, kindAction);
        QuotaSlot slot = cache.get(index);
        if (slot == null || !slot.matches(identifier, hash, kindAction) || !slot.isCurrent())
        {
            slot = resolve(identifier, hash, kindAction, action, index);
            if (slot == null)
            {
                return; // counted by resolve; the refusal itself stands
            }
        }
        slot.buffer.getAndAddLong(EntryLayout.STATE_OFFSET, 1);
        slot.buffer.putLongRelease(EntryLayout.TOUCHED_OFFSET, now);
    }

    /** The table could not give this check an entry: security controls fail closed, the others open. */
    private long unavailable(final Action action)
    {
        return action.isSecurityControl() ? Math.max(1, config.limit(action).windowMs()) : Floodgate.ADMITTED;
    }

    private QuotaSlot resolve(
        final CharSequence identifier, final int hash, final int kindAction, final Action action, final int index)
    {
        if (identifier.length() == 0)
        {
            throw new IllegalArgumentException("identifier is empty: expected at least one character");
        }
        final String id = identifier.toString();
        final FloodgateConfig.Limit limit = config.limit(action);
        final byte kind = (byte)(kindAction >>> 8);
        final long now = ticker.nanos();
        final long initialState = kind == EntryLayout.KIND_BUCKET ?
            new TokenBucket(limit.limit(), limit.windowMs()).fullWord(now) : 0;
        final Resolved resolved;
        try
        {
            resolved = table.resolve(kind, action, id, limit.limit(), limit.windowMs(), initialState, now);
        }
        catch (final TableFullException ex)
        {
            table.header().addCounter(FileHeader.tableFullOffset(action), 1);
            onTableFull.run();
            return null;
        }
        catch (final TableBusyException ex)
        {
            // a live process kept the table guard too long: degrade this check instead of stalling it
            table.header().addCounter(FileHeader.degradedOffset(action), 1);
            return null;
        }
        final QuotaSlot slot = new QuotaSlot(id, hash, kindAction, resolved, shards);
        cache.put(index, slot);
        return slot;
    }

    /** Forgets every cached address; the next check of each key resolves it again. */
    public void clearCache()
    {
        cache.clear();
    }
}
