package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Charge;
import dev.floodgate.Ticker;
import dev.floodgate.store.CounterRegion;
import dev.floodgate.store.Entry;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.PolicyRegion;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.Resolved;
import dev.floodgate.TableBusyException;
import dev.floodgate.store.TableFullException;

import java.util.List;

/**
 * The two doors' check paths, under the file's policy. A warm check costs one acquire load of the policy
 * generation (a window check a second one, after its claim), one load of this process's slot, acquire loads
 * of the entry's generation (lines only a publish or a reclaim writes), a clock read and one compare-and-set
 * on the mapped file: no Chronicle Map lookup, no lock, no allocation. A cold check (first
 * sight of a key in this process, an evicted slot, an entry the janitor tombstoned, or a bucket whose units
 * belong to an older policy version) resolves the entry in the table under its segment lock and caches it.
 *
 * <p><b>Bucket units across a policy change.</b> A bucket's TAT word is in units of its limit and window. The
 * entry records which (limit, window, version); the first check that finds the entry's version older than
 * its policy's converts the word under the segment's update lock ({@link BucketConversion}): a new entry
 * generation first, then the word frozen with a side record, the new units, the converted word (never equal
 * to the old one), the version; a process killed at any step leaves a state the next locker finishes or undoes.
 * A check in any process, on either policy, reads the TAT word and then the generation before its
 * compare-and-set
 * ({@link TokenBucket#tryAcquire(Entry, dev.floodgate.Ticker, long, long)}):
 * if it read the frozen or converted word it sees the new generation and resolves again; if it read the old
 * word its compare-and-set either lands first (and its token is converted with the debt) or fails. So no
 * check applies one policy's units to the other's word, and the tokens already spent carry over.
 *
 * <p><b>Windows across a policy change.</b> See {@link PolicyPlanner}: the regime switches at a window
 * boundary, regimes number their windows apart, and caps follow the claimed window's number. A window claim
 * is validated against the policy generation after it lands and given back when the policy changed
 * ({@link WindowClaim}), so what a check admits never depends on how stale its snapshot was.
 *
 * <p><b>Entry memory.</b> Every write a check makes to an entry (bucket and window compare-and-sets,
 * give-backs, the blocked count and its touch time) loads its word, then the entry's generation (acquire),
 * then compares-and-sets; a mismatch sends the check back to the table. A check resumed after its entry was
 * tombstoned, reaped and the memory reused writes nothing.
 *
 * <p>Thread-safe: any number of threads in any number of processes may check at once.
 */
public final class Doors
{
    static final int BUCKET = Entry.KIND_BUCKET << 8;
    static final int WINDOW = Entry.KIND_WINDOW << 8;
    private static final int BLOCKED = Entry.KIND_BLOCKED << 8;
    private static final long TOUCH_GRANULARITY_NANOS = 1_000_000_000L;
    private static final int ACTIONS = Action.values().length;
    /** Tries of one check when the policy or the entry changes under it, before it degrades. */
    static final int ATTEMPTS = 4;

    private final QuotaTable table;
    final Ticker ticker;
    final CoarseClock clock;
    final QuotaCache cache;
    final int shards;
    private final Runnable onTableFull;
    final PolicyRegion policyRegion;
    final CheckCounters counters;
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
     *                    {@link CheckResult#ADMITTED} or a retry-after in ms.
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
        this.scratch = ThreadLocal.withInitial(() -> new long[shards]);
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
     * @return {@link CheckResult#ADMITTED}, the retry-after in milliseconds, or {@link CheckResult#NEVER}.
     */
    public long checkBucket(final CharSequence identifier, final Action action, final long cost)
    {
        final ActionRule rule = policy().rule(action);
        final int a = action.ordinal();
        if (rule.isOff())
        {
            return CheckResult.ADMITTED; // not counted: an action switched off must cost next to nothing
        }
        final int hash = QuotaCache.hash(identifier);
        if (cost > rule.limit)
        {
            return never(identifier, hash, action, rule);
        }
        final int kindAction = BUCKET | a;
        final long now = clock.nanos(); // for the refusal's touch only: the bucket reads the ticker itself
        final long result = claimBucket(identifier, hash, kindAction, action, rule, cost, null, 0);
        if (result == UNREACHABLE)
        {
            return unavailable(action, rule);
        }
        return outcome(identifier, hash, action, rule, result, now);
    }

    /** Returned by {@link #claimBucket} when the entry could not be had: the unreachable rule answers. */
    static final long UNREACHABLE = -1;

    /**
     * The bucket door's claim, shared by a check and a charge: resolves the slot when it is missing, evicted,
     * tombstoned or in older units, and tries again when a conversion swaps the word under the claim, three
     * times at most (then degrades rather than spins).
     *
     * @param claimed when not null, receives at {@code i} the slot of an admitted claim (for a give-back).
     * @return {@link CheckResult#ADMITTED}, the retry-after in ms, or {@link #UNREACHABLE}.
     */
    long claimBucket(final CharSequence identifier, final int hash, final int kindAction,
        final Action action, final ActionRule rule, final long cost, final QuotaSlot[] claimed, final int i)
    {
        final int index = cache.index(hash, kindAction);
        QuotaSlot slot = cache.get(index, identifier, hash, kindAction);
        for (int attempt = 0; attempt < 3; attempt++)
        {
            // A slot in newer units than this check's rule (another process converted under a policy this
            // thread loaded a moment too early) is the truth: its units are the entry's. Only older is stale.
            if (slot == null || !slot.matches(identifier, hash, kindAction) || slot.version < rule.version ||
                !slot.isCurrent())
            {
                slot = resolve(identifier, hash, kindAction, action, rule, index);
                if (slot == null)
                {
                    return UNREACHABLE;
                }
            }
            final long result = slot.bucket.tryAcquire(slot.entry, ticker, cost, slot.generation);
            if (result != TokenBucket.STALE)
            {
                if (claimed != null)
                {
                    claimed[i] = result == CheckResult.ADMITTED ? slot : null;
                }
                return result;
            }
            slot = null;
        }
        return UNREACHABLE; // converted three times during one check
    }

    /**
     * Door 2: the per-CPU-sharded fixed window. The claim is validated against the policy generation after it
     * landed ({@link WindowClaim}); a check whose policy changed meanwhile gives its claim back and checks
     * again under the new one, at most {@link #ATTEMPTS} times, then answers as if the entry were unavailable.
     * An action off at the check's clock reading is admitted, uncounted, only when the generation is still the
     * one that said so.
     *
     * @param identifier who.
     * @param action     what.
     * @param cost       tokens, at least 1; all or nothing.
     * @return {@link CheckResult#ADMITTED}, the milliseconds to the window's end, or {@link CheckResult#NEVER}.
     */
    public long checkWindow(final CharSequence identifier, final Action action, final long cost)
    {
        final int kindAction = WINDOW | action.ordinal();
        ActionRule rule = null;
        for (int attempt = 0; attempt < ATTEMPTS; attempt++)
        {
            final PolicySnapshot policy = policy();
            rule = policy.rule(action);
            final long nowNanos = clock.nanos();
            final long nowMs = Math.floorDiv(nowNanos, 1_000_000L);
            final ActionRule.WindowCursor cursor = rule.cursor(nowMs);
            final long limit = cursor.regime().limit();
            if (limit == 0 && policyRegion.generationAcquire() == policy.generation())
            {
                return CheckResult.ADMITTED; // switched off: not counted, not even hashed; it must cost next to nothing
            }
            final int hash = QuotaCache.hash(identifier);
            if (limit == 0 || cost > limit)
            {
                if (policyRegion.generationAcquire() != policy.generation())
                {
                    continue; // the regime read may not be the one in force any more
                }
                return never(identifier, hash, action, rule);
            }
            final int index = cache.index(hash, kindAction);
            final QuotaSlot slot = windowSlot(identifier, hash, kindAction, action, rule, index);
            if (slot == null)
            {
                return unavailable(action, rule);
            }
            final int claimed = WindowClaim.claim(slot.entry, slot.generation, policyRegion, policy.generation(),
                rule, cursor.number(), cost, cost == 1 ? null : scratch.get(), false);
            if (claimed == WindowClaim.ADMITTED || claimed == WindowClaim.REFUSED)
            {
                return outcome(identifier, hash, action, rule,
                    claimed == WindowClaim.ADMITTED ? CheckResult.ADMITTED : Math.max(1, cursor.endMs() - nowMs),
                    nowNanos);
            }
            // STALE_ENTRY: the cached slot fails isCurrent and is resolved again; STALE_POLICY: reloaded above
        }
        return unavailable(action, rule); // the policy or the entry changed under every attempt: do not spin
    }

    QuotaSlot windowSlot(final CharSequence identifier, final int hash, final int kindAction,
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
     * Charges several quotas, all or nothing: see {@link Charges}.
     *
     * @param charges the quotas.
     * @return {@link CheckResult#ADMITTED}, or the refusing charge's result.
     */
    public long charge(final List<Charge> charges)
    {
        return Charges.charge(this, charges);
    }

    private long outcome(final CharSequence identifier, final int hash, final Action action, final ActionRule rule,
        final long result, final long nowNanos)
    {
        final int a = action.ordinal();
        if (result == CheckResult.ADMITTED)
        {
            counters.increment(a, CounterRegion.ADMITTED);
            return CheckResult.ADMITTED;
        }
        return refused(identifier, hash, action, rule, result, nowNanos);
    }

    /** Records a refusal; counts it as refused, or as admitted when the action is in shadow mode. */
    private long refused(final CharSequence identifier, final int hash, final Action action, final ActionRule rule,
        final long result, final long nowNanos)
    {
        recordRefusal(identifier, hash, action, nowNanos);
        if (shadowed(action.ordinal(), rule))
        {
            return CheckResult.ADMITTED;
        }
        counters.increment(action.ordinal(), CounterRegion.REFUSED);
        return result;
    }

    /** @return true, counted as shadowed and admitted, when the rule's action is in shadow mode. */
    boolean shadowed(final int a, final ActionRule rule)
    {
        if (!rule.shadow)
        {
            return false;
        }
        counters.increment(a, CounterRegion.SHADOWED);
        counters.increment(a, CounterRegion.ADMITTED);
        return true;
    }

    /** A cost above the whole limit: it can never succeed, so it is refused (or, in shadow mode, admitted). */
    private long never(final CharSequence identifier, final int hash, final Action action, final ActionRule rule)
    {
        counters.increment(action.ordinal(), CounterRegion.NEVER);
        return refused(identifier, hash, action, rule, CheckResult.NEVER, ticker.nanos());
    }

    void recordRefusal(final CharSequence identifier, final int hash, final Action action, final long now)
    {
        final int kindAction = BLOCKED | action.ordinal();
        final int index = cache.index(hash, kindAction);
        QuotaSlot slot = cache.get(index, identifier, hash, kindAction);
        for (int attempt = 0; attempt < ATTEMPTS; attempt++)
        {
            if (slot == null || !slot.isCurrent())
            {
                slot = resolve(identifier, hash, kindAction, action, null, index);
                if (slot == null)
                {
                    return; // counted by resolve; the refusal itself stands
                }
            }
            if (addRefusal(slot.entry, slot.generation, ShardProbe.shard(ShardProbe.probe(), shards), now))
            {
                return;
            }
            slot = null; // reclaimed under this refusal: count it in the entry that replaced it
        }
    }

    /**
     * Adds one refusal to a blocked counter's shard and, at most once a second, stores the touch time: striped
     * so racing refusals from several CPUs add to different lines, and the generation line every check reads
     * stays shared instead of bouncing on each refusal. Both writes are generation-checked
     * ({@link Entry#addRefusalIfCurrent}, {@link Entry#touchIfCurrent}).
     *
     * @return false when the generation changed before the count landed (nothing written: resolve again).
     */
    static boolean addRefusal(final Entry entry, final long generation, final int shard, final long now)
    {
        if (!entry.addRefusalIfCurrent(generation, shard))
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

    /**
     * The table could not give this check its entry in time (a live process held the segment, or the table is
     * full): the operator's rule for the action answers, and the answer is counted as what it is. Nothing is
     * ever admitted here without being counted as admitted.
     */
    long unavailable(final Action action, final ActionRule rule)
    {
        final long result = unavailableResult(action, rule);
        counters.increment(action.ordinal(), result == CheckResult.ADMITTED ? CounterRegion.ADMITTED :
            CounterRegion.REFUSED);
        return result;
    }

    long unavailableResult(final Action action, final ActionRule rule)
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
        final boolean bucket = kind == Entry.KIND_BUCKET;
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
    private void upgrade(final Entry value, final FileHeader header,
        final ActionRule rule)
    {
        BucketConversion.run(value, header::nextGeneration, rule.limit, rule.windowMs, rule.bucket, rule.version,
            ticker.nanos(), BucketConversion.STEPS);
    }
}
