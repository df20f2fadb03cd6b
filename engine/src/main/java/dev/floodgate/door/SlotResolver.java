package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.TableBusyException;
import dev.floodgate.Ticker;
import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLookup;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.Resolved;
import dev.floodgate.store.TableFullException;

import java.util.function.LongSupplier;

/**
 * A check's cold path: resolves an entry in the table under its segment lock (inserting it if absent, reviving
 * it if tombstoned, converting a bucket in older units: see {@link BucketDoor}) and caches its slot. A table
 * that cannot give the entry in time (full, or a guard held too long) is counted in the file and answered with
 * no slot, so the check degrades instead of stalling. Allocates (the key, the slot): the cold path only.
 * Thread-safe.
 */
final class SlotResolver
{
    private final QuotaTable table;
    private final EntryLookup lookup;
    private final Ticker ticker;
    private final QuotaCache cache;
    private final Runnable onTableFull;
    /** The file's generation source, made once: a conversion runs under the segment's guard, where nothing allocates. */
    private final LongSupplier nextGeneration;
    /** The lease sizes a lease slot's chunk is made of, or null when no action has a cluster quota. */
    private final ClusterGate cluster;

    SlotResolver(final QuotaTable table, final Ticker ticker, final QuotaCache cache, final Runnable onTableFull,
        final ClusterGate cluster)
    {
        this.cluster = cluster;
        this.table = table;
        this.lookup = table.lookup();
        this.ticker = ticker;
        this.cache = cache;
        this.onTableFull = onTableFull;
        this.nextGeneration = table.header()::nextGeneration;
    }

    /**
     * The emptiness test of a check's identifier, made here on the cold path rather than on every warm check, and on
     * the paths that admit without the table (an action switched off), which skipped it (found by review).
     */
    static void requireIdentifier(final CharSequence identifier)
    {
        if (identifier.length() == 0)
        {
            throw new IllegalArgumentException("identifier is empty: expected at least one character");
        }
    }

    /**
     * @param rule  the action's rule: the units of a bucket inserted or converted; null for a blocked counter or a
     *              lease.
     * @param index the key's set in the cache.
     * @return the resolved slot, now cached; or null when the table could not give it in time (counted).
     * @throws IllegalArgumentException if the identifier is empty.
     */
    QuotaSlot resolve(final CharSequence identifier, final int hash, final int kindAction, final Action action,
        final ActionRule rule, final int index)
    {
        requireIdentifier(identifier);
        final String id = identifier.toString();
        final byte kind = (byte)(kindAction >>> 8);
        final long now = ticker.nanos();
        final boolean bucket = kind == Entry.KIND_BUCKET;
        final long limit = rule == null ? 0 : rule.limit;
        final long windowMs = rule == null ? 0 : rule.windowMs;
        final long version = rule == null ? 0 : rule.version;
        final Resolved resolved;
        try
        {
            final long initialState = bucket ? rule.bucket.fullWord(now) :
                kind == Entry.KIND_LEASE ? LeaseRefill.firstSequence(System.currentTimeMillis()) : 0;
            resolved = lookup.resolve(kind, action, id, limit, windowMs, version, initialState, now,
                bucket ? (value, header) -> upgrade(value, rule) : null);
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
        final QuotaSlot slot = new QuotaSlot(id, hash, kindAction, resolved,
            kind == Entry.KIND_LEASE && cluster != null ? cluster.leaseSize(action) : 0);
        cache.put(index, slot);
        return slot;
    }

    /**
     * Converts a bucket's TAT word to the rule's units; under the segment's update lock. See {@link BucketDoor}.
     * The file's generation source is this resolver's own: the header the lookup passes is the same table's.
     */
    private void upgrade(final Entry value, final ActionRule rule)
    {
        BucketConversion.run(value, nextGeneration, rule.limit, rule.windowMs, rule.bucket, rule.version,
            ticker, BucketConversion.STEPS);
    }
}
