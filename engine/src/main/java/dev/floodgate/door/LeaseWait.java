package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Ticker;
import dev.floodgate.store.Entry;
import dev.floodgate.store.LeaseWords;

import java.util.concurrent.CompletableFuture;

/**
 * The cold half of a cluster check ({@link ClusterGate#admit}): a check whose node slot links no lease, or whose
 * lease cannot cover its cost, finds the lease entry and spends; when the balance is <b>short</b> (a cold key, or
 * spent faster than refilled) it makes sure one lease is in flight (its own, or the node's fetch already under way)
 * and waits for it at most {@link #CHECK_WAIT_NANOS} (50 ms, the bound a check already has for a held segment),
 * then spends once more; a lease that left it short without saying the bucket is drained (a give-back's word, a
 * grant replayed to a retry of its sequence that asked less, a stale answer) makes it ask again within the same
 * wait. Waiting rather than refusing at once, because a cold key would otherwise be refused on its first check on
 * every node.
 *
 * <p><b>Two bounds</b>: a check waits at most 50 ms; a lease may take up to the source's bound (1 s for Redis)
 * and its grant is committed whenever it arrives. They were one 50 ms bound at first: on a loaded host (load 14
 * on two cores) most round trips took longer, every lease timed out, and the nodes refused nearly every check
 * although Redis had granted the tokens. A check that waited its 50 ms without a lease answers the action's
 * fallback; its lease still lands in the balance for the next check.
 *
 * <p>A lease granted short of what it asked means the cluster's bucket is drained: the lease entry then says
 * when it will hold half a lease again, and until then every JVM of the node refuses a check its balance cannot
 * cover at once, with that time as the retry-after, and asks Redis nothing. <b>Redis unavailable</b> (the lease
 * ended without an answer): the action's fallback answers, local (admit on the node's quota alone) or a refusal
 * with the short retry-after; for the next {@code 2 x 50 ms} this JVM answers so at once, without asking again.
 * Thread-safe.
 */
final class LeaseWait
{
    /** The longest a check waits for a lease: the bound a check already has for a held segment. */
    static final long CHECK_WAIT_NANOS = 50_000_000L;
    private static final long RESOLVE = Long.MIN_VALUE;
    /**
     * Leases a short check asks for or waits on at most: a give-back's word (no tokens), a grant replayed to a retry
     * that asked less, then the check's own ask.
     */
    private static final int ASK_ROUNDS = 3;

    private final LeaseSource source;
    private final Ticker ticker;
    private final long[] limits;
    private final long[] leaseSize;
    private final boolean[] local;
    private final long retryAfterMs;
    private final ClusterCounters counters;
    private final LeaseFetcher fetcher;

    /** The arrays are the gate's own (per action ordinal), shared, never written. See {@link ClusterGate}. */
    LeaseWait(final LeaseSource source, final Ticker ticker, final long[] limits, final long[] leaseSize,
        final boolean[] local, final long retryAfterMs, final ClusterCounters counters, final LeaseFetcher fetcher)
    {
        this.source = source;
        this.ticker = ticker;
        this.limits = limits;
        this.leaseSize = leaseSize;
        this.local = local;
        this.retryAfterMs = retryAfterMs;
        this.counters = counters;
        this.fetcher = fetcher;
    }

    /**
     * A probe's view, without network I/O and without waiting, of what a check of cost 1 answers when its balance
     * cannot cover it, in {@link #whenShort}'s order: while this JVM met the source unavailable a moment ago, the
     * fallback; while the lease is marked drained, the mark's wait; while the connection is down, or a round trip of
     * the node for the lease is in flight, the fallback, as a check whose wait ends without a lease answers (a probe
     * gives the round trip no wait); else admitted, as a check would ask for a lease and the cluster, not known to be
     * drained, is taken to grant it (what the node last heard of it).
     *
     * @param entry the lease entry, read as the probe found it; null when the node has none (a lease would be asked).
     * @return {@link CheckResult#ADMITTED}, or the retry-after in ms.
     */
    long probeShort(final Action action, final Entry entry, final long nowNanos)
    {
        final int a = action.ordinal();
        if (fetcher.isDown(a, nowNanos))
        {
            return local[a] ? CheckResult.ADMITTED : retryAfterMs;
        }
        final long emptyMs = entry == null ? 0 : LeaseRefill.emptyForMs(entry, nowNanos / 1_000_000L);
        if (emptyMs > 0)
        {
            return emptyMs; // drainedWaitMs for a need of 1 token, which half a lease always covers
        }
        if (local[a] || source.connected() && (entry == null || !fetcher.roundTripInFlight(entry, nowNanos)))
        {
            return CheckResult.ADMITTED;
        }
        return retryAfterMs;
    }

    /**
     * {@link ClusterGate#admit} without a linked lease, or one that cannot cover the cost (or was reclaimed).
     * Parameters and result as {@code admit}'s.
     */
    long admitCold(final Doors doors, final CharSequence identifier, final int hash, final Action action,
        final long cost, final QuotaSlot node)
    {
        return admitCold(doors, identifier, hash, action, cost, node, false);
    }

    /**
     * As {@link #admitCold(Doors, CharSequence, int, Action, long, QuotaSlot)}; with {@code tellUnspent}, an
     * admission that spent nothing from the lease (the fallback's {@code local}, the unreachable rule's) answers
     * {@link ClusterGate#ADMITTED_UNSPENT} ({@link ClusterGate#admitInCharge}).
     */
    long admitCold(final Doors doors, final CharSequence identifier, final int hash, final Action action,
        final long cost, final QuotaSlot node, final boolean tellUnspent)
    {
        if (cost > limits[action.ordinal()])
        {
            return CheckResult.NEVER; // admit's precondition, which the doors keep: tested here, where it costs nothing
        }
        final int kindAction = ClusterGate.KIND | action.ordinal();
        QuotaSlot slot = node != null ? node.lease : null;
        if (slot == null)
        {
            slot = link(node, doors.slot(identifier, hash, kindAction, action, null, Doors.ANY_VERSION));
        }
        for (int attempt = 0; attempt < Doors.ATTEMPTS; attempt++)
        {
            if (slot == null)
            {
                // the table could not give the lease entry in time
                return unspent(doors.unavailableResult(action), tellUnspent);
            }
            final long left = LeaseBalance.spend(slot, cost);
            if (left >= 0)
            {
                fetcher.refillIfLow(slot, left, identifier, action);
                return CheckResult.ADMITTED;
            }
            if (left == LeaseBalance.SHORT)
            {
                final long answer = whenShort(slot, identifier, action, cost, tellUnspent);
                if (answer != RESOLVE)
                {
                    return answer;
                }
            }
            slot = link(node, doors.resolve(identifier, hash, kindAction, action, null, Doors.ANY_VERSION));
        }
        return unspent(doors.unavailableResult(action), tellUnspent);
    }

    private static long unspent(final long result, final boolean tellUnspent)
    {
        return tellUnspent && result == CheckResult.ADMITTED ? ClusterGate.ADMITTED_UNSPENT : result;
    }

    private static QuotaSlot link(final QuotaSlot node, final QuotaSlot lease)
    {
        if (node != null)
        {
            node.lease = lease;
        }
        return lease;
    }

    /**
     * The balance cannot cover the cost: wait for a lease ({@link #ASK_ROUNDS} at most), at most
     * {@link #CHECK_WAIT_NANOS} in all; spend once more.
     */
    private long whenShort(final QuotaSlot slot, final CharSequence identifier, final Action action, final long cost,
        final boolean tellUnspent)
    {
        final int a = action.ordinal();
        final long now = ticker.nanos();
        if (fetcher.isDown(a, now))
        {
            return unspent(fallback(action), tellUnspent);
        }
        final Entry entry = slot.entry;
        final long emptyMs = LeaseRefill.emptyForMs(entry, now / 1_000_000L);
        if (emptyMs > 0)
        {
            // the bucket was drained moments ago: no round trip to hear it again
            return refused(a, fetcher.drainedWaitMs(a, emptyMs, cost - LeaseWords.balanceVolatile(entry)));
        }
        final long deadline = now + CHECK_WAIT_NANOS;
        for (int round = 0; round < ASK_ROUNDS; round++)
        {
            final CompletableFuture<Void> own =
                fetcher.fetch(slot, identifier, action, Math.max(cost, leaseSize[a]), ticker.nanos());
            if (own != null)
            {
                fetcher.awaitUntil(own, deadline);
            }
            else
            {
                fetcher.awaitOthersFetch(entry, cost, deadline); // another thread of the node holds the refill word
            }
            // The word came free and the balance is still short. It was held by a give-back, which never brings
            // tokens (found by review: such a check was refused while the bucket held 9 of 10); or the answer was the
            // grant of an earlier request with this sequence that asked less (a refill that timed out after Redis
            // applied it, replayed to this cost's larger ask: committed, the sequence moved on; found by review:
            // such a check was answered STALE and refused "by the cluster" while its bucket held 980 of 1,000); or
            // the answer was stale (the sequence skipped) or other checks spent the grant first. Ask again, within
            // the same wait. A short grant (the drained mark) or none (unavailable, or slower than the wait) ends it.
            if (LeaseWords.balanceVolatile(entry) >= cost || LeaseWords.refillVolatile(entry) != 0 ||
                ticker.nanos() - deadline >= 0 || fetcher.isDown(a, ticker.nanos()) ||
                LeaseRefill.emptyForMs(entry, ticker.nanos() / 1_000_000L) > 0)
            {
                break;
            }
        }
        final long left = LeaseBalance.spend(slot, cost);
        if (left >= 0)
        {
            fetcher.refillIfLow(slot, left, identifier, action);
            return CheckResult.ADMITTED;
        }
        if (left == LeaseBalance.GONE)
        {
            return RESOLVE;
        }
        final long later = ticker.nanos();
        final long waitMs = LeaseRefill.emptyForMs(entry, later / 1_000_000L);
        if (waitMs > 0)
        {
            return refused(a, fetcher.drainedWaitMs(a, waitMs, cost - LeaseWords.balanceVolatile(entry)));
        }
        // Redis said nothing within the check's bound (unavailable, or slower than 50 ms): no lease to spend
        if (fetcher.isDown(a, later) || LeaseWords.refillVolatile(entry) != 0)
        {
            return unspent(fallback(action), tellUnspent);
        }
        return refused(a, retryAfterMs); // the lease came and other checks spent it first
    }

    private long refused(final int action, final long retryAfter)
    {
        counters.increment(action, ClusterCounters.REFUSED);
        return retryAfter;
    }

    private long fallback(final Action action)
    {
        final int a = action.ordinal();
        counters.increment(a, local[a] ? ClusterCounters.FALLBACK_LOCAL : ClusterCounters.FALLBACK_REFUSED);
        return local[a] ? CheckResult.ADMITTED : retryAfterMs;
    }
}
