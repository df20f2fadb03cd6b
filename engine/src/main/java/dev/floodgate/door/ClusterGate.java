package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Ticker;
import dev.floodgate.store.ClusterCounterRegion;
import dev.floodgate.store.Entry;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.function.LongPredicate;

/**
 * The cluster's half of a check of an action with a cluster quota (issue 12): after the node's door admitted
 * {@code cost}, spends it from the node's {@linkplain LeaseBalance lease} in the shared table; the door gives its
 * claim back when this refuses.
 *
 * <p><b>Warm</b>: one compare-and-set on the lease's balance (the CPU's balance line of it when the lease is large
 * enough: {@link LeaseBalance#spend}), no network I/O. When the central balance left falls below
 * the refill threshold (half a lease, raised to what the node spends during a refill's flight, twice over, up to a
 * whole lease: {@link LeaseFetcher#threshold}), the check that wins the refill word starts one asynchronous lease,
 * whose grant is committed when it completes. <b>Cold</b> (no lease linked to the node's slot, or a balance that
 * cannot cover the cost): {@link LeaseWait}, which waits a bounded time for a lease when the balance is short, and
 * answers the action's fallback when none comes.
 *
 * <p>A lease asks for {@code max(cost, lease size)} (a tenth of the cluster limit by default): ten round trips per
 * window per busy node at most, and at most a lease per node unspent (the under-admission bound).
 *
 * <p>Starting leases and committing their answers is {@link LeaseFetcher}'s. Thread-safe.
 */
public final class ClusterGate implements AutoCloseable
{
    static final int KIND = Entry.KIND_LEASE << 8;
    /**
     * {@link #admitInCharge}: admitted without a token from the lease (the action's fallback {@code local} while Redis
     * is unavailable, or the unreachable rule's answer), so a give-back would add tokens no lease brought.
     */
    static final long ADMITTED_UNSPENT = -1;
    private static final System.Logger LOG = System.getLogger("dev.floodgate");

    private final LeaseSource source;
    private final long[] limits;
    private final long[] windowsMs;
    /** Per action ordinal, 1 once this process logged its node's quota off under the cluster's ({@link #nodeOff}). */
    private final AtomicIntegerArray nodeOffLogged;
    private final long[] leaseSize;
    private final ClusterCounters counters;
    private final LeaseGiveBack giveBacks;
    private final LeaseFetcher fetcher;
    private final LeaseWait leaseWait;

    /**
     * @param source       the lease service.
     * @param owner        the engine's owner: the file stays mapped while it is reachable.
     * @param ticker       the monotonic clock.
     * @param limits       per action ordinal, the cluster limit (0 where none).
     * @param windowsMs    per action ordinal, the cluster window.
     * @param leaseSize    per action ordinal, the tokens a lease asks for; 0 where the action has no cluster quota.
     * @param local        per action ordinal, the fallback: true to admit on the node's quota, false to refuse.
     * @param retryAfterMs the retry-after of a refusal for want of a lease.
     * @param holder       this process's name in a lease entry's refill word, at most 24 bits.
     * @param holderAlive  whether the process a refill word names is alive (a kernel question, not a pid's).
     */
    public ClusterGate(final LeaseSource source, final Object owner, final Ticker ticker, final long[] limits,
        final long[] windowsMs, final long[] leaseSize, final boolean[] local, final long retryAfterMs,
        final long holder, final LongPredicate holderAlive)
    {
        this.limits = limits.clone();
        this.windowsMs = windowsMs.clone();
        this.nodeOffLogged = new AtomicIntegerArray(limits.length);
        this.source = source;
        this.leaseSize = leaseSize.clone();
        this.counters = new ClusterCounters(leaseSize.length);
        final RefillHolders holders = new RefillHolders(holder, holderAlive);
        final long takeoverNanos = LeaseFetcher.TAKEOVER_BOUNDS * TimeUnit.MILLISECONDS.toNanos(source.timeoutMs());
        this.giveBacks = new LeaseGiveBack(source, ticker, windowsMs, takeoverNanos, holders);
        this.fetcher = new LeaseFetcher(source, owner, ticker, limits, windowsMs, leaseSize, takeoverNanos, holders,
            giveBacks, counters);
        this.leaseWait = new LeaseWait(source, ticker, this.limits, this.leaseSize, local.clone(), retryAfterMs,
            counters, fetcher);
    }

    /** @return this process's counts of cluster refusals and fallbacks. */
    public ClusterCounters counters()
    {
        return counters;
    }

    /** Adds this process's cluster counts since the last flush, and its client's totals, to the node's. */
    public void flush(final ClusterCounterRegion region)
    {
        counters.flush(region, source::totals);
    }

    /** @return this process's lease source: its totals and its connection. */
    public LeaseSource source()
    {
        return source;
    }

    /** @return whether checks of {@code action} need the cluster's admission. */
    boolean covers(final Action action)
    {
        return leaseSize[action.ordinal()] != 0;
    }

    /** @return the tokens a lease of {@code action} asks for (0 where none): a lease slot's chunk is made of it. */
    long leaseSize(final Action action)
    {
        return leaseSize[action.ordinal()];
    }

    /** @return whether {@code cost} exceeds the cluster limit of {@code action}: no wait would ever admit it. */
    boolean exceedsLimit(final Action action, final long cost)
    {
        final int a = action.ordinal();
        return leaseSize[a] != 0 && cost > limits[a];
    }

    /** @return the cluster limit of {@code action}, tokens per cluster window (0 where none). */
    long limit(final Action action)
    {
        return limits[action.ordinal()];
    }

    /**
     * Says, once per action in this instance (a check of an action off must stay cheap, and a log line per check
     * would flood), that the node's policy switched off the quota of an action this JVM's configuration gives a
     * cluster quota, which stays in force ({@link ClusterOnly}).
     *
     * @param file the table, named in the line.
     */
    void nodeOff(final Object file, final Action action)
    {
        final int a = action.ordinal();
        if (nodeOffLogged.get(a) == 0 && nodeOffLogged.compareAndSet(a, 0, 1))
        {
            LOG.log(System.Logger.Level.WARNING, "{0}: the node''s policy switched {1} off (limit 0), but this " +
                "JVM''s cluster quota of {2} per {3} ms stays in force: each check of {1} is admitted only when the " +
                "cluster admits it, and counted", file, action.configPrefix(), Long.toString(limits[a]),
                Long.toString(windowsMs[a]));
        }
    }

    /** @return what a probe says a check of cost 1 its balance cannot cover answers: {@link LeaseWait#probeShort}. */
    long probeShort(final Action action, final Entry entry, final long nowNanos)
    {
        return leaseWait.probeShort(action, entry, nowNanos);
    }

    /** @return what gives the node's unspent tokens back, idle and at close. */
    public LeaseGiveBack giveBacks()
    {
        return giveBacks;
    }

    /**
     * Spends {@code cost} from the node's lease, after the node's door admitted it.
     *
     * <p><b>Precondition</b>: {@code action} has a cluster quota ({@link #covers}) and {@code cost} is at most its
     * cluster limit ({@link #exceedsLimit} is false). Every caller answers {@link CheckResult#NEVER} before it claims
     * anything when it is not ({@link Doors#overCluster}: the bucket and window checks, and a charge, whose quota
     * over the limit claims nothing and reaches no spend), so the warm path does not test it again; a larger cost
     * could be spent from a balance that holds it, past the cluster limit. Without a linked lease it is tested
     * still ({@link LeaseWait#admitCold}).
     *
     * @param node the slot of the node's entry that admitted it, whose {@link QuotaSlot#lease} link this follows
     *             and keeps; null to look the lease up by name.
     * @return {@link CheckResult#ADMITTED}, or a retry-after in ms (the door then gives its claim back).
     */
    long admit(final Doors doors, final CharSequence identifier, final int hash, final Action action, final long cost,
        final QuotaSlot node)
    {
        // the warm path, kept small enough to inline into the doors: the node's slot links a lease
        final QuotaSlot linked = node != null ? node.lease : null;
        if (linked != null)
        {
            final long left = LeaseBalance.spend(linked, cost);
            if (left == LeaseBalance.SPENT_ON_LINE)
            {
                return CheckResult.ADMITTED;
            }
            if (left >= 0)
            {
                fetcher.refillIfLow(linked, left, identifier, action);
                return CheckResult.ADMITTED;
            }
        }
        return leaseWait.admitCold(doors, identifier, hash, action, cost, node);
    }

    /**
     * {@link #admit} for a quota of a charge ({@link ChargeSettlement}), which gives back what the cluster spent for it
     * when a later quota refuses the whole: an admission that spent nothing is told apart, as there is nothing to give
     * back for it. Not a warm path: it goes through {@link LeaseWait#admitCold}, which spends a linked lease too.
     *
     * @return {@link CheckResult#ADMITTED} when spent from the lease; {@link #ADMITTED_UNSPENT}; or a retry-after in
     * ms.
     */
    long admitInCharge(final Doors doors, final CharSequence identifier, final int hash, final Action action,
        final long cost, final QuotaSlot node)
    {
        return leaseWait.admitCold(doors, identifier, hash, action, cost, node, true);
    }

    /**
     * Gives back a spend {@link #admit} made (a charge whose later quota refused the whole).
     */
    void giveBack(final Doors doors, final CharSequence identifier, final int hash, final Action action,
        final long cost)
    {
        final QuotaSlot slot = doors.slot(identifier, hash, KIND | action.ordinal(), action, null, Doors.ANY_VERSION);
        if (slot != null)
        {
            LeaseBalance.giveBack(slot.entry, slot.generation, cost); // reclaimed meanwhile: lost, under-admits
        }
    }

    /**
     * Ends the idle give-backs ({@link LeaseGiveBack#endIdle}: the refund in flight is answered first, within its
     * bound), then closes the source, whose calls in flight end unavailable.
     */
    @Override
    public void close()
    {
        giveBacks.endIdle();
        source.close();
    }
}
