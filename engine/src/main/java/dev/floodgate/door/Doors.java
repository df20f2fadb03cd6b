package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Charge;
import dev.floodgate.Ticker;
import dev.floodgate.store.Entry;
import dev.floodgate.store.PolicyRegion;
import dev.floodgate.store.QuotaTable;

import java.util.List;

/**
 * The doors' entry points, the state they share, and the prelude every check runs around its door's claim,
 * written once for the bucket door ({@link BucketDoor}), the window door ({@link WindowDoor}) and each quota of
 * a charge ({@link Charges}): the policy snapshot and the action's rule, the verdict before any claim (switched
 * off, or a cost above the whole limit), the entry's slot from this process's cache or, cold, from the table
 * ({@link SlotResolver}), and the counting of the outcome ({@link Outcomes}: a refusal into the
 * {@link BlockedCounter}, shadow mode, an unreachable entry). The doors and {@code Outcomes} are final classes
 * of static methods over this state: every call on the warm path binds statically, and the shared state is one
 * load from here, as it would be in one class.
 *
 * <p>A warm check costs one acquire load of the policy generation (a window check a second one, after its
 * claim), one load of this process's slot, acquire loads of the entry's generation (lines only a publish or a
 * reclaim writes), a clock read and one compare-and-set on the mapped file: no Chronicle Map lookup, no lock,
 * no allocation. A check of an action with a cluster quota adds one compare-and-set on its lease entry
 * ({@link ClusterGate}). A cold check (first sight of a key in this process, an evicted slot, an entry the janitor
 * tombstoned, or a bucket whose units belong to an older policy version) resolves the entry in the table under
 * its segment lock and caches it.
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
    /** Tries of one check when the policy or the entry changes under it, before it degrades. */
    static final int ATTEMPTS = 4;
    /**
     * {@link #verdict}: the action is switched off; admitted and not counted (but for this JVM's cluster quota of it,
     * which stays in force: {@link ClusterOnly}).
     */
    static final int OFF = 0;
    /** {@link #verdict}: the cost exceeds the whole limit; refused with {@link CheckResult#NEVER}. */
    static final int OVER = 1;
    /** {@link #verdict}: the door claims. */
    static final int CLAIM = 2;
    /** The slot's units are never too old: a window's or a blocked counter's. */
    static final long ANY_VERSION = Long.MIN_VALUE;

    private static final int ACTIONS = Action.values().length;

    private final QuotaTable table;
    final Ticker ticker;
    final CoarseClock clock;
    final int shards;
    final PolicyRegion policyRegion;
    final CheckCounters counters;
    /** A window check's receipts for a cost above 1, per thread: the warm path allocates nothing. */
    final ThreadLocal<long[]> scratch;
    private final QuotaCache cache;
    private final SlotResolver resolver;
    private final long[] unreachable;
    /** Records a window regime's first count, so no publish replaces it as pending. */
    final RegimeEntry regimes;
    /** The cluster quota's half of a check (issue 12), or null when no action has one. */
    final ClusterGate cluster;
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
     * @param cluster     the cluster quota's half of a check, or null when no action has a cluster quota.
     */
    public Doors(final QuotaTable table, final long capacity, final Ticker ticker, final CoarseClock clock,
        final CheckCounters counters, final Runnable onTableFull, final long[] unreachable,
        final ClusterGate cluster)
    {
        this.cluster = cluster;
        this.unreachable = unreachable.clone();
        this.table = table;
        this.ticker = ticker;
        this.clock = clock;
        this.counters = counters;
        this.shards = table.shards();
        this.cache = new QuotaCache((int)Math.min(1 << 18, Math.max(1024, 2 * capacity)));
        this.resolver = new SlotResolver(table, ticker, cache, onTableFull, cluster);
        this.policyRegion = new PolicyRegion(table.header(), ACTIONS);
        this.regimes = new RegimeEntry(table, policyRegion, ticker);
        this.scratch = ThreadLocal.withInitial(() -> WindowClaim.receipts(shards));
        this.snapshot = readPolicy();
    }

    /**
     * Door 1: the exact token bucket. See {@link BucketDoor}.
     *
     * @param identifier who.
     * @param action     what.
     * @param cost       tokens, at least 1.
     * @return {@link CheckResult#ADMITTED}, the retry-after in milliseconds, or {@link CheckResult#NEVER}.
     */
    public long checkBucket(final CharSequence identifier, final Action action, final long cost)
    {
        return BucketDoor.check(this, identifier, action, cost, null);
    }

    /** As {@link #checkBucket}, through a handle's own slot. */
    public long checkBucket(final HeldQuota held, final long cost)
    {
        return BucketDoor.check(this, held.identifier, held.action, cost, held);
    }

    /**
     * Door 2: the per-CPU-sharded fixed window. See {@link WindowDoor}.
     *
     * @param identifier who.
     * @param action     what.
     * @param cost       tokens, at least 1; all or nothing.
     * @return {@link CheckResult#ADMITTED}, the milliseconds to the window's end, or {@link CheckResult#NEVER}.
     */
    public long checkWindow(final CharSequence identifier, final Action action, final long cost)
    {
        return WindowDoor.check(this, identifier, action, cost, null);
    }

    /** As {@link #checkWindow}, through a handle's own slot. */
    public long checkWindow(final HeldQuota held, final long cost)
    {
        return WindowDoor.check(this, held.identifier, held.action, cost, held);
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

    /**
     * @return whether a check of {@code action} must be admitted by the cluster too, after its door: then the
     * door keeps what it needs to give its claim back.
     */
    boolean clustered(final Action action)
    {
        return cluster != null && cluster.covers(action);
    }

    /**
     * @return whether {@code cost} exceeds the cluster limit of {@code action}: answered {@link CheckResult#NEVER}
     * before any claim, as a cost over the node's limit is.
     */
    boolean overCluster(final Action action, final long cost)
    {
        return cluster != null && cluster.exceedsLimit(action, cost);
    }

    /** @return the table the doors check in. */
    QuotaTable table()
    {
        return table;
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
     * The verdict before any claim, the same for both doors and every quota of a charge.
     *
     * @param limit the limit in force for the door at the check's moment (the bucket's, or the window regime's).
     * @param cost  tokens, at least 1.
     * @return {@link #OFF} when the limit is 0, {@link #OVER} when the cost exceeds it, else {@link #CLAIM}.
     */
    static int verdict(final long limit, final long cost)
    {
        return limit == 0 ? OFF : cost > limit ? OVER : CLAIM;
    }

    /**
     * The entry's slot from this process's cache, or resolved from the table when it is missing, evicted, no
     * longer current or in units older than {@code minVersion}.
     *
     * @param rule       the action's rule (a new entry's units); null for a blocked counter.
     * @param minVersion the oldest policy version of usable units: a bucket's rule's, else {@link #ANY_VERSION}.
     * @return the slot, or null when the table could not give it in time (counted by the resolver).
     */
    QuotaSlot slot(final CharSequence identifier, final int hash, final int kindAction, final Action action,
        final ActionRule rule, final long minVersion)
    {
        return slot(identifier, hash, kindAction, action, rule, minVersion, null);
    }

    /**
     * As {@link #slot(CharSequence, int, int, Action, ActionRule, long)}, from a handle's own slot when
     * {@code held} is not null (and stored back there when resolved).
     */
    QuotaSlot slot(final CharSequence identifier, final int hash, final int kindAction, final Action action,
        final ActionRule rule, final long minVersion, final HeldQuota held)
    {
        if (held != null)
        {
            final QuotaSlot own = held.slot(kindAction);
            return own != null && own.version >= minVersion && own.isCurrent() ? own :
                held.keep(kindAction, resolve(identifier, hash, kindAction, action, rule, minVersion));
        }
        final int index = cache.index(hash, kindAction);
        final QuotaSlot cached = cache.get(index, identifier, hash, kindAction);
        // A slot in newer units than this check's rule (another process converted under a policy this
        // thread loaded a moment too early) is the truth: its units are the entry's. Only older is stale.
        if (cached != null && cached.version >= minVersion && cached.isCurrent())
        {
            return cached;
        }
        return resolve(identifier, hash, kindAction, action, rule, minVersion);
    }

    /**
     * The entry's slot from the table, skipping the cache: for a claim that found its slot's entry changed
     * under it. Parameters and result as {@link #slot}'s.
     */
    QuotaSlot resolve(final CharSequence identifier, final int hash, final int kindAction, final Action action,
        final ActionRule rule, final long minVersion)
    {
        final QuotaSlot slot = resolver.resolve(identifier, hash, kindAction, action, rule,
            cache.index(hash, kindAction));
        if (slot != null && minVersion != ANY_VERSION && slot.version > minVersion)
        {
            reloadPolicy(); // another process converted under a policy this one has not loaded yet
        }
        if (slot != null && kindAction >>> 8 == Entry.KIND_LEASE && cluster != null)
        {
            cluster.giveBacks().remember(slot, action); // cold path: every lease this JVM spends is known
        }
        return slot;
    }

    /** @return what the operator's rule answers for an unreachable entry of the action, uncounted. */
    long unavailableResult(final Action action)
    {
        return unreachable[action.ordinal()];
    }
}
