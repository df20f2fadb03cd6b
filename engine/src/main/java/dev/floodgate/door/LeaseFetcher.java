package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Ticker;
import dev.floodgate.store.Entry;
import dev.floodgate.store.LeaseWords;

import java.lang.ref.Reference;
import java.lang.ref.WeakReference;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.locks.LockSupport;

/**
 * The refill side of {@link ClusterGate}: starts a node's leases (one in flight per lease entry, across the node's
 * JVMs, by the entry's refill word), commits their answers into the shared table whenever they come within the
 * source's bound, and remembers, per action, until when this JVM answers the fallback without asking Redis again.
 *
 * <p>The completion of an asynchronous lease writes the file from the client's thread: it holds the engine's
 * owner weakly and fences it while it writes, so the file is never unmapped under it. Thread-safe.
 */
final class LeaseFetcher
{
    /**
     * A fetch in flight this many source bounds is presumed dead (its JVM killed or frozen) and taken over: a live
     * fetcher's completion, which releases the word, runs at the latest at one bound.
     */
    static final long TAKEOVER_BOUNDS = 3;
    private static final long WAIT_STEP_NANOS = 100_000L;
    private static final LeaseSource.Grant UNANSWERED = new LeaseSource.Grant(LeaseSource.UNAVAILABLE, 0, 0);
    private static final System.Logger LOG = System.getLogger("dev.floodgate");

    private final LeaseSource source;
    private final WeakReference<Object> owner;
    private final Ticker ticker;
    private final long[] leaseSize;
    /** Per action, the cluster's ms per token: how long its bucket takes to hold half a lease again. */
    private final double[] msPerToken;
    private final long takeoverNanos;
    private final RefillHolders holders;
    private final LeaseGiveBack giveBacks;
    private final ClusterCounters counters;
    /** Per action: until when (monotonic ns) this JVM answers the fallback without asking again. */
    private final AtomicLongArray downUntil;

    LeaseFetcher(final LeaseSource source, final Object owner, final Ticker ticker, final long[] limits,
        final long[] windowsMs, final long[] leaseSize, final long takeoverNanos, final RefillHolders holders,
        final LeaseGiveBack giveBacks, final ClusterCounters counters)
    {
        this.msPerToken = new double[limits.length];
        for (int a = 0; a < limits.length; a++)
        {
            msPerToken[a] = limits[a] == 0 ? 0 : (double)windowsMs[a] / limits[a];
        }
        this.source = source;
        this.owner = new WeakReference<>(owner);
        this.ticker = ticker;
        this.leaseSize = leaseSize.clone();
        this.takeoverNanos = takeoverNanos;
        this.holders = holders;
        this.giveBacks = giveBacks;
        this.counters = counters;
        this.downUntil = new AtomicLongArray(leaseSize.length);
    }

    /** @return whether a lease of action {@code a} ended unavailable within the last 2 x 50 ms before {@code now}. */
    boolean isDown(final int a, final long now)
    {
        return now - downUntil.get(a) < 0;
    }

    /**
     * @return whether a round trip of the node for {@code entry} (a lease, or a give-back's refund) is in flight now
     * and a check would wait for it rather than take its refill word over ({@link LeaseRefill#heldNow}); may ask the
     * kernel whether its holder lives. A probe's question, never a check's.
     */
    boolean roundTripInFlight(final Entry entry, final long nowNanos)
    {
        final long word = LeaseWords.refillVolatile(entry);
        return word != 0 && LeaseRefill.heldNow(word, nowNanos / 1_000_000L, takeoverNanos, holders);
    }

    /**
     * Starts one asynchronous lease when the balance left is under the slot's refill threshold (half a lease, or
     * what the last refill measured: {@link #threshold}) and no fetch is in flight.
     *
     * @param left the central balance the check's spend left ({@link LeaseBalance#spend}).
     */
    void refillIfLow(final QuotaSlot slot, final long left, final CharSequence identifier, final Action action)
    {
        final int a = action.ordinal();
        final Entry entry = slot.entry;
        final long below = slot.refillBelow;
        if (left >= (below != 0 ? below : (leaseSize[a] + 1) / 2) || LeaseWords.refillVolatile(entry) != 0)
        {
            return;
        }
        final long now = ticker.nanos();
        if (isDown(a, now) || LeaseRefill.emptyForMs(entry, now / 1_000_000L) > 0)
        {
            return;
        }
        fetch(slot, identifier, action, leaseSize[a], now);
    }

    /**
     * Starts one asynchronous lease of {@code want} tokens when this thread wins the refill word; its completion
     * commits the answer, whenever it comes within the source's bound, and releases the word.
     *
     * @return the commit's stage, or null when another fetch holds the word (or the entry changed).
     */
    CompletableFuture<Void> fetch(final QuotaSlot slot, final CharSequence identifier, final Action action,
        final long want, final long now)
    {
        final Entry entry = slot.entry;
        final long claim = LeaseRefill.claimRefill(entry, slot.generation, now, takeoverNanos, holders);
        if (claim == 0)
        {
            return null;
        }
        giveBacks.remember(slot, action);
        final long sequence = LeaseRefill.sequence(entry);
        final long balanceAtStart = LeaseWords.balanceVolatile(entry);
        final CompletionStage<LeaseSource.Grant> lease;
        try
        {
            lease = Objects.requireNonNull(source.lease(action, identifier.toString(), sequence, want), "lease");
        }
        catch (final RuntimeException | Error ex)
        {
            // the source broke its contract (it answers through the stage, never by a throw or a null): the word is
            // released now, not taken over 3 bounds later, and the check answers as for an unavailable source
            commit(slot, action, sequence, want, UNANSWERED, 0);
            LeaseRefill.releaseRefill(entry, slot.generation, claim);
            if (ex instanceof Error error)
            {
                throw error;
            }
            LOG.log(System.Logger.Level.ERROR, "the cluster's lease source threw instead of answering", ex);
            return CompletableFuture.completedFuture(null);
        }
        return lease.handle((grant, error) ->
        {
            final Object held = owner.get();
            if (held == null)
            {
                return null; // the engine is gone and its file may be unmapped: write nothing
            }
            try
            {
                commit(slot, action, sequence, want, grant != null ? grant : UNANSWERED, balanceAtStart);
            }
            finally
            {
                LeaseRefill.releaseRefill(entry, slot.generation, claim);
                Reference.reachabilityFence(held);
            }
            return (Void)null;
        }).toCompletableFuture();
    }

    /**
     * Commits a lease's answer. A grant short of what its request asked means the cluster's bucket is drained: the
     * node asks again only once it holds half a lease, so round trips follow tokens admitted, not checks refused. A
     * grant the server replayed to a retry that asked another amount (the sequence's first request timed out after
     * Redis applied it, and a check's cost above the lease size asked more with the same sequence) is committed as
     * any grant and measured against what its own request asked: it says nothing of the bucket beyond that, and a
     * check still short asks again under the next sequence ({@link LeaseWait}). Until a review found it, the
     * server answered such a retry STALE: the sequence was skipped, the grant lost to the node, and the check refused
     * as if by the cluster while its bucket held tokens.
     */
    private void commit(final QuotaSlot slot, final Action action, final long sequence, final long want,
        final LeaseSource.Grant grant, final long balanceAtStart)
    {
        final long now = ticker.nanos();
        final int a = action.ordinal();
        switch (grant.status())
        {
            case LeaseSource.GRANTED ->
            {
                final long asked = grant.asked() > 0 ? grant.asked() : want;
                if (balanceAtStart > 0)
                {
                    slot.refillBelow = threshold(leaseSize[a], balanceAtStart, LeaseWords.balanceVolatile(slot.entry));
                }
                if (LeaseRefill.commitGrant(slot.entry, slot.generation, sequence, grant.tokens(), now))
                {
                    counters.add(a, ClusterCounters.LEASED, grant.tokens()); // in the balance: leased, once
                }
                if (grant.tokens() < asked)
                {
                    final long halfLease = (leaseSize[a] + 1) / 2;
                    LeaseRefill.markEmpty(slot.entry, slot.generation, now / 1_000_000L + grant.waitMs() +
                        (long)Math.ceil((halfLease - 1) * msPerToken[a]));
                }
            }
            case LeaseSource.STALE -> LeaseRefill.skipStale(slot.entry, slot.generation, sequence,
                System.currentTimeMillis());
            default -> downUntil.set(a, now + 2 * LeaseWait.CHECK_WAIT_NANOS);
        }
    }

    /**
     * The retry-after of a check refused while its lease is marked drained, {@code emptyMs} being the mark's ms left:
     * the mark ends when the cluster's bucket holds half a lease again ({@link #commit}); a check whose {@code need}
     * (the tokens beyond the node's balance) is more is told when the bucket holds it, counted the same way from the
     * same moment (it was told the mark's wait at each retry: 900 of 1,000 a minute about 3 s, for a minute).
     */
    long drainedWaitMs(final int action, final long emptyMs, final long need)
    {
        final long half = (leaseSize[action] + 1) / 2;
        final double perToken = msPerToken[action];
        return need <= half ? emptyMs :
            emptyMs + (long)Math.ceil((need - 1) * perToken) - (long)Math.ceil((half - 1) * perToken);
    }

    /**
     * The refill threshold a refill's flight says: what the node spent while the lease was on the wire, twice over
     * (so the next refill lands before the balance runs out at the same rate and latency), at least half a lease
     * and at most a whole one; a whole one when the balance ran dry meanwhile. Half a lease whatever the rate was
     * the rule before: at a lease of 10^6 and 15 M checks a second, a refill slower than 33 ms (a loaded host) left
     * the balance empty and one benchmark trial refused 908,120 checks. A node then holds at most two leases
     * unspent instead of one and a half, and the quarter lease its balance lines may hold (the under-admission
     * bound, {@link LeaseBalance#spend}); round trips still follow the admitted rate divided by the lease.
     *
     * @param lease     the lease size.
     * @param atStart   the balance when the refill started (above 0: started by a spend, not a short check).
     * @param atCommit  the balance when its grant came, before it is added.
     * @return the balance below which the next refill starts.
     */
    static long threshold(final long lease, final long atStart, final long atCommit)
    {
        final long half = (lease + 1) / 2;
        if (atCommit <= 0)
        {
            return lease;
        }
        final long spent = Math.max(0, atStart - atCommit);
        return Math.max(half, Math.min(lease, spent > lease / 2 ? lease : 2 * spent));
    }

    /**
     * Waits, until {@code deadline} (monotonic ns) at most, while another thread of the node holds the refill word of
     * {@code entry} and its balance is short of {@code cost}: that thread's fetch may bring what the check needs.
     */
    void awaitOthersFetch(final Entry entry, final long cost, final long deadline)
    {
        boolean interrupted = Thread.interrupted(); // parkNanos would not park while it is set: kept, given back
        while (LeaseWords.refillVolatile(entry) != 0 && LeaseWords.balanceVolatile(entry) < cost &&
            ticker.nanos() - deadline < 0)
        {
            LockSupport.parkNanos(WAIT_STEP_NANOS);
            interrupted |= Thread.interrupted();
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Waits for {@code commit} until {@code deadline} (monotonic ns, on the engine's ticker) at most; it then goes on
     * without this check. The timed get only parks: the bound is the ticker's, as every other bound of a check (a
     * ticker that stands still waits for the answer, which the source's own bound ends).
     */
    void awaitUntil(final CompletableFuture<Void> commit, final long deadline)
    {
        // An interrupt does not end the wait; the caller's status is kept. A set status made get() throw at once,
        // and a check on a pooled thread after a cancelled task answered the fallback though its lease came
        // moments later (found by review).
        boolean interrupted = false;
        try
        {
            while (true)
            {
                try
                {
                    commit.get(Math.max(0, deadline - ticker.nanos()), TimeUnit.NANOSECONDS);
                    return;
                }
                catch (final InterruptedException ex)
                {
                    interrupted = true;
                }
                catch (final ExecutionException ex)
                {
                    return; // a broken source: the check answers without it
                }
                catch (final TimeoutException ex)
                {
                    if (ticker.nanos() - deadline >= 0)
                    {
                        return; // slower than the check may wait: the check answers without it
                    }
                }
            }
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
