package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Charge;
import dev.floodgate.Floodgate;
import dev.floodgate.Ticker;
import dev.floodgate.store.CounterRegion;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.PolicyRegion;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.Resolved;
import dev.floodgate.store.TableBusyException;
import dev.floodgate.store.TableFullException;

import java.util.List;

/**
 * The two doors' check paths, under the file's policy. A warm check costs one acquire load of the policy
 * generation, one load of this process's slot, one acquire load of the entry's generation, a clock read and
 * one compare-and-set on the mapped file: no Chronicle Map lookup, no lock, no allocation. A cold check (first
 * sight of a key in this process, an evicted slot, an entry the janitor tombstoned, or a bucket whose units
 * belong to an older policy version) resolves the entry in the table under its segment lock and caches it.
 *
 * <p><b>Bucket units across a policy change.</b> A bucket's TAT word is in units of its limit and window. The
 * entry records which (limit, window, version); the first check that finds the entry's version older than
 * its policy's converts the word under the segment's update lock: it publishes a new entry generation
 * (release), then swaps the word by compare-and-set for one holding the same debt in tokens in the new units
 * (rounded up, and never equal to the old word), then records the new units. A check in any process, on
 * either policy, reads the TAT word and then the generation before its compare-and-set
 * ({@link TokenBucket#tryAcquire(org.agrona.concurrent.AtomicBuffer, int, dev.floodgate.Ticker, long, int, long)}): if it read
 * the converted word it sees the new generation and resolves again; if it read the old word its
 * compare-and-set either lands first (and its token is converted with the debt) or fails. So no check applies
 * one policy's units to the other's word, and the tokens already spent carry over: nothing is over-admitted.
 *
 * <p><b>Windows across a policy change.</b> See {@link PolicyPlanner}: the regime switches at a window
 * boundary and caps follow the claimed window's number.
 *
 * <p>Thread-safe: any number of threads in any number of processes may check at once.
 */
public final class Doors
{
    private static final int BUCKET = EntryLayout.KIND_BUCKET << 8;
    private static final int WINDOW = EntryLayout.KIND_WINDOW << 8;
    private static final int BLOCKED = EntryLayout.KIND_BLOCKED << 8;
    private static final long TOUCH_GRANULARITY_NANOS = 1_000_000_000L;
    private static final int ACTIONS = Action.values().length;

    private final QuotaTable table;
    private final Ticker ticker;
    private final CoarseClock clock;
    private final QuotaCache cache;
    private final int shards;
    private final Runnable onTableFull;
    private final PolicyRegion policyRegion;
    private final CheckCounters counters;
    private final ThreadLocal<long[]> scratch;
    private final long[] unreachable;
    private volatile PolicySnapshot snapshot;

    /**
     * @param table       the table.
     * @param capacity    entries the table is sized for (sizes the slot cache).
     * @param ticker      the bucket's clock.
     * @param clock       the window door's clock.
     * @param counters    this process's check counters.
     * @param onTableFull asked (without waiting) to reclaim idle entries when a check finds the table full.
     * @param unreachable per action ordinal, what a check answers when it cannot reach its entry in time:
     *                    {@link Floodgate#ADMITTED} or a retry-after in ms.
     */
    public Doors(final QuotaTable table, final long capacity, final Ticker ticker, final CoarseClock clock,
        final CheckCounters counters, final Runnable onTableFull, final long[] unreachable)
    {
        this.unreachable = unreachable.clone();
        this.onTableFull = onTableFull;
        this.table = table;
        this.ticker = ticker;
        this.clock = clock;
        this.counters = counters;
        this.shards = table.shards();
        this.cache = new QuotaCache((int)Math.min(1 << 18, Math.max(1024, 2 * capacity)));
        this.policyRegion = new PolicyRegion(table.header(), ACTIONS);
        this.scratch = ThreadLocal.withInitial(() -> new long[2 * shards]);
        this.snapshot = readPolicy();
    }

    /** @return the file's current policy: this process's snapshot, revalidated by one acquire load. */
    public PolicySnapshot policy()
    {
        final PolicySnapshot s = snapshot;
        if (policyRegion.generationAcquire() == s.generation())
        {
            return s;
        }
        return reloadPolicy();
    }

    private PolicySnapshot reloadPolicy()
    {
        final PolicySnapshot fresh = readPolicy();
        snapshot = fresh;
        return fresh;
    }

    private PolicySnapshot readPolicy()
    {
        final PolicyRegion.Block[] blocks = new PolicyRegion.Block[ACTIONS];
        final long generation = policyRegion.read(blocks);
        if (generation == 0)
        {
            throw new IllegalStateException(table.file() + " has no policy: publish one before checking");
        }
        return new PolicySnapshot(generation, blocks, shards);
    }

    /**
     * Door 1: the exact token bucket.
     *
     * @param identifier who.
     * @param action     what.
     * @param cost       tokens, at least 1.
     * @return {@link Floodgate#ADMITTED}, the retry-after in milliseconds, or {@link Floodgate#NEVER}.
     */
    public long checkBucket(final CharSequence identifier, final Action action, final long cost)
    {
        final ActionRule rule = policy().rule(action);
        final int a = action.ordinal();
        if (rule.isOff())
        {
            return Floodgate.ADMITTED; // not counted: an action switched off must cost next to nothing
        }
        final int hash = QuotaCache.hash(identifier);
        if (cost > rule.limit)
        {
            return never(identifier, hash, action, rule);
        }
        final int kindAction = BUCKET | a;
        final int index = cache.index(hash, kindAction);
        QuotaSlot slot = cache.get(index, identifier, hash, kindAction);
        final long now = clock.nanos(); // for the refusal's touch only: the bucket reads the ticker itself
        long result = TokenBucket.STALE;
        for (int attempt = 0; attempt < 3 && result == TokenBucket.STALE; attempt++)
        {
            // A slot in newer units than this check's rule (another process converted under a policy this
            // thread loaded a moment too early) is the truth: its units are the entry's. Only older is stale.
            if (slot == null || !slot.matches(identifier, hash, kindAction) || slot.version < rule.version ||
                !slot.isCurrent())
            {
                slot = resolve(identifier, hash, kindAction, action, rule, index);
                if (slot == null)
                {
                    return unavailable(action, rule);
                }
            }
            result = slot.bucket.tryAcquire(slot.buffer, EntryLayout.STATE_OFFSET, ticker, cost,
                EntryLayout.GENERATION_OFFSET, slot.generation);
            slot = result == TokenBucket.STALE ? null : slot;
        }
        if (result == TokenBucket.STALE)
        {
            return unavailable(action, rule); // converted three times during one check: degrade, do not spin
        }
        return outcome(identifier, hash, action, rule, result, now);
    }

    /**
     * Door 2: the per-CPU-sharded fixed window.
     *
     * @param identifier who.
     * @param action     what.
     * @param cost       tokens, at least 1; all or nothing.
     * @return {@link Floodgate#ADMITTED}, the milliseconds to the window's end, or {@link Floodgate#NEVER}.
     */
    public long checkWindow(final CharSequence identifier, final Action action, final long cost)
    {
        final ActionRule rule = policy().rule(action);
        final int a = action.ordinal();
        if (rule.isOff())
        {
            return Floodgate.ADMITTED; // not counted: an action switched off must cost next to nothing
        }
        final int hash = QuotaCache.hash(identifier);
        final int kindAction = WINDOW | a;
        final int index = cache.index(hash, kindAction);
        final long nowNanos = clock.nanos();
        final long nowMs = Math.floorDiv(nowNanos, 1_000_000L);
        final ActionRule.WindowCursor cursor = rule.cursor(nowMs);
        if (cursor.regime().limit() == 0)
        {
            counters.increment(a, CounterRegion.ADMITTED); // a clock a moment behind a switch-on: still off
            return Floodgate.ADMITTED;
        }
        if (cost > cursor.regime().limit())
        {
            return never(identifier, hash, action, rule);
        }
        final QuotaSlot slot = windowSlot(identifier, hash, kindAction, action, rule, index);
        if (slot == null)
        {
            return unavailable(action, rule);
        }
        final long[] claims = cost == 1 ? null : scratch.get();
        final boolean admitted = claimWindow(slot, rule, cursor.number(), cost, claims);
        if (admitted && claims != null)
        {
            java.util.Arrays.fill(claims, 0); // kept: the scratch array is clean for the next charge
        }
        return outcome(identifier, hash, action, rule,
            admitted ? Floodgate.ADMITTED : Math.max(1, cursor.endMs() - nowMs), nowNanos);
    }

    private QuotaSlot windowSlot(final CharSequence identifier, final int hash, final int kindAction,
        final Action action, final ActionRule rule, final int index)
    {
        final QuotaSlot slot = cache.get(index, identifier, hash, kindAction);
        if (slot == null || !slot.isCurrent())
        {
            return resolve(identifier, hash, kindAction, action, rule, index);
        }
        return slot;
    }

    /**
     * Claims {@code cost} tokens across the shards, all or nothing: shards are claimed in turn from the
     * thread's home shard, each compare-and-set taking what its shard can give, and if the sweep ends short
     * every partial claim is given back ({@link ShardedWindow#giveBack}: same window only, never below zero).
     * Meanwhile a concurrent check may be refused a token this charge will give back: that under-admits for
     * an instant, never over-admits.
     *
     * @param claims null for one token; else per shard (window40, tokens) pairs, filled here.
     * @return true when all {@code cost} tokens were claimed.
     */
    private boolean claimWindow(final QuotaSlot slot, final ActionRule rule, final long number, final long cost,
        final long[] claims)
    {
        final int sweep = rule.sweepShards;
        int probe = ShardProbe.probe();
        final int home = ShardProbe.shard(probe, sweep);
        long remaining = cost;
        for (int k = 0; k < sweep && remaining > 0; k++)
        {
            final int shard = home + k < sweep ? home + k : home + k - sweep;
            final int offset = EntryLayout.shardOffset(shard);
            long taken;
            while ((taken = ShardedWindow.tryClaim(slot.buffer, offset, remaining, number, rule.previous,
                rule.current, shard, claims)) < 0)
            {
                probe = ShardProbe.advance(probe); // lost a race: spread to another home next time
            }
            remaining -= taken;
        }
        if (remaining == 0 || claims == null)
        {
            return remaining == 0;
        }
        giveBackWindow(slot, claims);
        return false;
    }

    private void giveBackWindow(final QuotaSlot slot, final long[] claims)
    {
        for (int shard = 0; shard < shards; shard++)
        {
            if (claims[2 * shard + 1] > 0 && slot.isCurrent())
            {
                ShardedWindow.giveBack(slot.buffer, EntryLayout.shardOffset(shard), claims[2 * shard],
                    claims[2 * shard + 1]);
            }
            claims[2 * shard] = 0;
            claims[2 * shard + 1] = 0;
        }
    }

    /**
     * Charges several quotas, all or nothing: each is claimed in list order and, when one is refused, those
     * already claimed are given back. Each charge counts as one check of its action, with the outcome of the
     * whole. Allocates (a cold-ish path for produce requests with several quotas).
     *
     * @param charges the quotas.
     * @return {@link Floodgate#ADMITTED}, or the refusing charge's result.
     */
    public long charge(final List<Charge> charges)
    {
        final PolicySnapshot policy = policy();
        final int n = charges.size();
        final QuotaSlot[] slots = new QuotaSlot[n];
        final long[][] claims = new long[n][];
        final long[] nows = new long[n];
        final boolean[] counted = new boolean[n];
        long refusal = Floodgate.ADMITTED;
        int refused = -1;
        for (int i = 0; i < n && refused < 0; i++)
        {
            final Charge c = charges.get(i);
            final ActionRule rule = policy.rule(c.action());
            if (rule.isOff())
            {
                continue;
            }
            final int hash = QuotaCache.hash(c.identifier());
            final int kindAction = (c.bucket() ? BUCKET : WINDOW) | c.action().ordinal();
            final int index = cache.index(hash, kindAction);
            final long result;
            if (c.bucket())
            {
                nows[i] = ticker.nanos();
                result = c.cost() > rule.limit ? Floodgate.NEVER :
                    chargeBucket(c, hash, kindAction, index, rule, nows[i], slots, i);
            }
            else
            {
                nows[i] = clock.nanos();
                final long nowMs = Math.floorDiv(nows[i], 1_000_000L);
                final ActionRule.WindowCursor cursor = rule.cursor(nowMs);
                if (cursor.regime().limit() == 0)
                {
                    continue; // still off at this clock reading
                }
                final QuotaSlot slot = c.cost() > cursor.regime().limit() ? null :
                    windowSlot(c.identifier(), hash, kindAction, c.action(), rule, index);
                if (slot == null)
                {
                    result = c.cost() > cursor.regime().limit() ? Floodgate.NEVER :
                        unavailableResult(c.action(), rule);
                }
                else
                {
                    claims[i] = new long[2 * shards];
                    slots[i] = slot;
                    result = claimWindow(slot, rule, cursor.number(), c.cost(), claims[i]) ? Floodgate.ADMITTED :
                        Math.max(1, cursor.endMs() - nowMs);
                    if (result != Floodgate.ADMITTED)
                    {
                        slots[i] = null; // claimWindow gave its partial claims back
                    }
                }
            }
            if (result != Floodgate.ADMITTED)
            {
                recordRefusal(c.identifier(), hash, c.action(), nows[i]);
                if (result == Floodgate.NEVER)
                {
                    counters.increment(c.action().ordinal(), CounterRegion.NEVER);
                }
                if (rule.shadow)
                {
                    counters.increment(c.action().ordinal(), CounterRegion.SHADOWED);
                    counters.increment(c.action().ordinal(), CounterRegion.ADMITTED);
                    counted[i] = true;
                    continue; // a shadow quota never fails the whole
                }
                refusal = result;
                refused = i;
            }
        }
        for (int i = 0; i < n; i++)
        {
            final Charge c = charges.get(i);
            if (refused >= 0 && slots[i] != null)
            {
                if (c.bucket())
                {
                    slots[i].bucket.giveBack(slots[i].buffer, EntryLayout.STATE_OFFSET, nows[i], c.cost(),
                        EntryLayout.GENERATION_OFFSET, slots[i].generation);
                }
                else
                {
                    giveBackWindow(slots[i], claims[i]);
                }
            }
            if (!counted[i])
            {
                counters.increment(c.action().ordinal(), refused < 0 ? CounterRegion.ADMITTED : CounterRegion.REFUSED);
            }
        }
        return refusal;
    }

    private long chargeBucket(final Charge c, final int hash, final int kindAction, final int index,
        final ActionRule rule, final long now, final QuotaSlot[] slots, final int i)
    {
        QuotaSlot slot = cache.get(index, c.identifier(), hash, kindAction);
        for (int attempt = 0; attempt < 3; attempt++)
        {
            if (slot == null || !slot.matches(c.identifier(), hash, kindAction) || slot.version < rule.version ||
                !slot.isCurrent())
            {
                slot = resolve(c.identifier(), hash, kindAction, c.action(), rule, index);
            }
            if (slot == null)
            {
                return unavailableResult(c.action(), rule);
            }
            final long result = slot.bucket.tryAcquire(slot.buffer, EntryLayout.STATE_OFFSET, ticker, c.cost(),
                EntryLayout.GENERATION_OFFSET, slot.generation);
            if (result != TokenBucket.STALE)
            {
                slots[i] = result == Floodgate.ADMITTED ? slot : null;
                return result;
            }
            slot = null;
        }
        return unavailableResult(c.action(), rule);
    }

    private long outcome(final CharSequence identifier, final int hash, final Action action, final ActionRule rule,
        final long result, final long nowNanos)
    {
        final int a = action.ordinal();
        if (result == Floodgate.ADMITTED)
        {
            counters.increment(a, CounterRegion.ADMITTED);
            return Floodgate.ADMITTED;
        }
        recordRefusal(identifier, hash, action, nowNanos);
        if (rule.shadow)
        {
            counters.increment(a, CounterRegion.SHADOWED);
            counters.increment(a, CounterRegion.ADMITTED);
            return Floodgate.ADMITTED;
        }
        counters.increment(a, CounterRegion.REFUSED);
        return result;
    }

    /** A cost above the whole limit: it can never succeed, so it is refused (or, in shadow mode, admitted). */
    private long never(final CharSequence identifier, final int hash, final Action action, final ActionRule rule)
    {
        final int a = action.ordinal();
        counters.increment(a, CounterRegion.NEVER);
        recordRefusal(identifier, hash, action, ticker.nanos());
        if (rule.shadow)
        {
            counters.increment(a, CounterRegion.SHADOWED);
            counters.increment(a, CounterRegion.ADMITTED);
            return Floodgate.ADMITTED;
        }
        counters.increment(a, CounterRegion.REFUSED);
        return Floodgate.NEVER;
    }

    private void recordRefusal(final CharSequence identifier, final int hash, final Action action, final long now)
    {
        final int kindAction = BLOCKED | action.ordinal();
        final int index = cache.index(hash, kindAction);
        QuotaSlot slot = cache.get(index, identifier, hash, kindAction);
        if (slot == null || !slot.isCurrent())
        {
            slot = resolve(identifier, hash, kindAction, action, null, index);
            if (slot == null)
            {
                return; // counted by resolve; the refusal itself stands
            }
        }
        // Striped: racing refusals from several CPUs add to different lines. The touch time only needs to say
        // "refused within the last day", so it is stored only when a second old: the generation line every
        // check reads stays shared instead of bouncing on each refusal.
        slot.buffer.getAndAddLong(EntryLayout.shardOffset(ShardProbe.shard(ShardProbe.probe(), shards)), 1);
        if (now - slot.buffer.getLong(EntryLayout.TOUCHED_OFFSET) > TOUCH_GRANULARITY_NANOS)
        {
            slot.buffer.putLongRelease(EntryLayout.TOUCHED_OFFSET, now);
        }
    }

    /**
     * The table could not give this check its entry in time (a live process held the segment, or the table is
     * full): the operator's rule for the action answers, and the answer is counted as what it is. Nothing is
     * ever admitted here without being counted as admitted.
     */
    private long unavailable(final Action action, final ActionRule rule)
    {
        final long result = unavailableResult(action, rule);
        counters.increment(action.ordinal(), result == Floodgate.ADMITTED ? CounterRegion.ADMITTED :
            CounterRegion.REFUSED);
        return result;
    }

    private long unavailableResult(final Action action, final ActionRule rule)
    {
        return unreachable[action.ordinal()];
    }

    private QuotaSlot resolve(final CharSequence identifier, final int hash, final int kindAction,
        final Action action, final ActionRule rule, final int index)
    {
        if (identifier.length() == 0)
        {
            throw new IllegalArgumentException("identifier is empty: expected at least one character");
        }
        final String id = identifier.toString();
        final byte kind = (byte)(kindAction >>> 8);
        final long now = ticker.nanos();
        final boolean bucket = kind == EntryLayout.KIND_BUCKET;
        final long limit = rule == null ? 0 : rule.limit;
        final long windowMs = rule == null ? 0 : rule.windowMs;
        final long version = rule == null ? 0 : rule.version;
        final Resolved resolved;
        try
        {
            resolved = table.resolve(kind, action, id, limit, windowMs, version,
                bucket ? rule.bucket.fullWord(now) : 0, now, bucket ? (value, header) -> upgrade(value, header, rule) :
                null);
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
        if (bucket && resolved.version() > rule.version)
        {
            reloadPolicy(); // another process converted under a policy this one has not loaded yet
        }
        final QuotaSlot slot = new QuotaSlot(id, hash, kindAction, resolved);
        cache.put(index, slot);
        return slot;
    }

    /** Converts a bucket's TAT word to the rule's units; under the segment's update lock. See the class doc. */
    private void upgrade(final org.agrona.concurrent.UnsafeBuffer value, final FileHeader header,
        final ActionRule rule)
    {
        final long entryVersion = value.getInt(EntryLayout.UNITS_VERSION_OFFSET) & 0xFFFF_FFFFL;
        if (entryVersion >= rule.version)
        {
            return;
        }
        final long oldLimit = value.getLong(EntryLayout.LIMIT_OFFSET);
        final long oldWindowMs = value.getLong(EntryLayout.WINDOW_MS_OFFSET);
        if (oldLimit != rule.limit || oldWindowMs != rule.windowMs)
        {
            final TokenBucket from = new TokenBucket(oldLimit, oldWindowMs);
            // first the generation: any check that reads the converted word sees it and resolves again
            value.putLongRelease(EntryLayout.GENERATION_OFFSET, header.nextGeneration());
            final long now = ticker.nanos();
            while (true)
            {
                final long tat = value.getLongVolatile(EntryLayout.STATE_OFFSET);
                long next = from.convert(tat, now, rule.bucket);
                next = next == tat ? next + 1 : next; // one unit more debt, so an old-units CAS cannot succeed
                if (value.compareAndSetLong(EntryLayout.STATE_OFFSET, tat, next))
                {
                    break;
                }
            }
            value.putLong(EntryLayout.LIMIT_OFFSET, rule.limit);
            value.putLong(EntryLayout.WINDOW_MS_OFFSET, rule.windowMs);
        }
        value.putIntRelease(EntryLayout.UNITS_VERSION_OFFSET, (int)rule.version);
    }

}
