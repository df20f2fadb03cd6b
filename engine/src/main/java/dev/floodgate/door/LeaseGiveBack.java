package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Ticker;
import dev.floodgate.store.Entry;
import dev.floodgate.store.LeaseWords;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Gives a node's unspent leased tokens back to the cluster's buckets (issue 12): a lease no JVM of the node has
 * spent from or refilled for one cluster window ({@link #giveBackIdle}, run on the janitor thread), and every
 * lease this JVM knows when it is the node's last to close ({@link #giveBackAll}).
 *
 * <p><b>One give-back</b>, under the entry's protocol (load, generation test, compare-and-set) at every step:
 * take the lease's refill word (a lease whose refill is in flight is in use: skipped), take the whole balance,
 * each of its words by one compare-and-set to 0 ({@link LeaseBalance#takeAll}), move the sequence on first
 * ({@link LeaseRefill#reserveSequence}), send the refund with the old number and wait for it, then release the
 * word. <b>Guaranteed under concurrency</b>, across every JVM of the node: a token is spent by a check or given
 * back, never both (a word's compare-and-set decides); the server applies a refund at most once (its sequence is
 * the node's, used once); holding the refill word keeps the node's requests for the bucket one at a time. A JVM
 * killed after the compare-and-set loses those tokens, and a refund answered unavailable may or may not have been
 * applied, so its tokens are not put back: both under-admit, never over. A stale answer changed nothing on the
 * server: the tokens go back into the balance.
 *
 * <p><b>Which leases</b>: those this JVM refilled, remembered at each refill (off the warm path, which allocates
 * nothing) until the janitor reclaims their entry. The table's keys are hashes, so only a JVM that saw a lease's identifier can name its bucket to Redis;
 * at the node's last close, {@link NamedLeases} also names those whose identifier the entry's label holds whole,
 * so leases only a closed sibling knew are given back too when their identifiers fit the label; a longer one's
 * balance stays in the file for the node's next JVM (under-admission until then, bounded by the balance).
 *
 * <p><b>Bounded</b>: each refund of an idle pass waits at most the source's bound and 50 ms, of a close 100 ms (a
 * refund slower than that at close counts as unavailable: its tokens are lost to the bound); a pass stops starting
 * give-backs after {@link #PASS_BUDGET_NANOS} and at the first refund that finds Redis unavailable, so a down Redis
 * costs a pass at most one bound. Passes are serialised on this object. Thread-safe.
 */
public final class LeaseGiveBack
{
    /** A pass (and so a close) starts no give-back after this long: 1 s, hundreds of refunds on a LAN. */
    static final long PASS_BUDGET_NANOS = 1_000_000_000L;
    /** A close waits this long for each refund: a close must not take a stalled Redis's bound per lease. */
    static final long CLOSE_REFUND_WAIT_NANOS = 2 * LeaseWait.CHECK_WAIT_NANOS;
    /** Idle passes run at least this often... */
    static final long MIN_PERIOD_MS = 100;
    /** ...and at most this rarely. */
    static final long MAX_PERIOD_MS = 60_000;

    private static final int SKIPPED = 0;
    private static final int GIVEN = 1;
    private static final int DOWN = 2;

    private final LeaseSource source;
    private final Ticker ticker;
    private final long[] windowsNanos;
    private final long takeoverNanos;
    private final RefillHolders holders;
    private final ConcurrentHashMap<Ref, Watch> known = new ConcurrentHashMap<>();

    /** A lease this JVM refilled. */
    private record Ref(int kindAction, String identifier)
    {
    }

    /** What the idle pass last saw of a lease; read and written only under the pass's lock. */
    private static final class Watch
    {
        final Action action;
        final QuotaSlot slot;
        long balance = -1;
        long touched;
        long refill;
        long sinceNanos;

        Watch(final Action action, final QuotaSlot slot)
        {
            this.action = action;
            this.slot = slot;
        }
    }

    LeaseGiveBack(final LeaseSource source, final Ticker ticker, final long[] windowsMs, final long takeoverNanos,
        final RefillHolders holders)
    {
        this.source = source;
        this.ticker = ticker;
        this.windowsNanos = new long[windowsMs.length];
        for (int a = 0; a < windowsMs.length; a++)
        {
            windowsNanos[a] = TimeUnit.MILLISECONDS.toNanos(windowsMs[a]);
        }
        this.takeoverNanos = takeoverNanos;
        this.holders = holders;
    }

    /**
     * @return how often the idle pass should run: half the shortest cluster window, so a lease idle for a window
     * is given back within a window and a half, between {@link #MIN_PERIOD_MS} and {@link #MAX_PERIOD_MS}.
     */
    public long idlePeriodMs()
    {
        long shortest = Long.MAX_VALUE;
        for (final long window : windowsNanos)
        {
            shortest = window > 0 ? Math.min(shortest, window / 2_000_000L) : shortest;
        }
        return Math.max(MIN_PERIOD_MS, Math.min(MAX_PERIOD_MS, shortest));
    }

    /** Remembers a lease this JVM is refilling, so that it can be given back. Called on a refill only. */
    void remember(final QuotaSlot slot, final Action action)
    {
        final Ref ref = new Ref(slot.kindAction, slot.identifier);
        final Watch watch = known.get(ref);
        if (watch == null || watch.slot.entry != slot.entry || watch.slot.generation != slot.generation)
        {
            known.put(ref, new Watch(action, slot));
        }
    }

    /**
     * Gives back each known lease whose balance, refill time and refill word no JVM of the node changed for one
     * cluster window (as seen by this pass and the earlier ones), and forgets leases reclaimed.
     *
     * <p>A lease stays known after it is given back, or while idle and empty, until the janitor reclaims its entry
     * (a day without a refill): a sibling may lease it again and this JVM spend from it on the warm path, which
     * remembers nothing, and such a lease was never given back again once forgotten (found by review). A refill
     * word that stays the same for a window is no fetch in flight (a fetch ends within the source's bound) but one a
     * killed fetcher left: the give-back takes it over as a fetch would, where it used to wait for it for good.
     *
     * @return the leases given back.
     */
    public synchronized int giveBackIdle()
    {
        final long start = ticker.nanos();
        int given = 0;
        for (final Iterator<Map.Entry<Ref, Watch>> it = known.entrySet().iterator(); it.hasNext(); )
        {
            final Map.Entry<Ref, Watch> item = it.next();
            final Watch watch = item.getValue();
            final Entry entry = watch.slot.entry;
            final long balance = LeaseWords.balanceVolatile(entry);
            final long touched = entry.touchedVolatile();
            final long refill = LeaseWords.refillVolatile(entry);
            if (!watch.slot.isCurrent())
            {
                // reclaimed by the janitor: nothing of it to give back (unless remember() replaced it meanwhile)
                known.remove(item.getKey(), watch);
                continue;
            }
            if (balance != watch.balance || touched != watch.touched || refill != watch.refill)
            {
                watch.balance = balance;
                watch.touched = touched;
                watch.refill = refill;
                watch.sinceNanos = start;
                continue;
            }
            if (start - watch.sinceNanos < windowsNanos[watch.action.ordinal()] || balance == 0)
            {
                continue;
            }
            if (ticker.nanos() - start >= PASS_BUDGET_NANOS)
            {
                break;
            }
            final int outcome = giveBack(watch, idleRefundWaitNanos());
            if (outcome == DOWN)
            {
                break;
            }
            if (outcome == GIVEN)
            {
                given++;
            }
        }
        return given;
    }

    /**
     * Gives back every lease's balance (the node's last JVM is closing): those this JVM knows, then, while Redis
     * answers and the budget lasts, those {@link NamedLeases} finds (one scan of the table). Within
     * {@link #PASS_BUDGET_NANOS} plus one refund's wait and that scan; stops at the first refund that finds Redis
     * unavailable. Throws nothing: what is not given back stays in the file.
     *
     * @param doors the doors, whose table is scanned for the leases this JVM does not know.
     * @return the leases given back.
     */
    public synchronized int giveBackAll(final Doors doors)
    {
        final long start = ticker.nanos();
        final int[] given = {0};
        if (giveBackKnown(start, given) && rememberNamed(doors, start))
        {
            giveBackKnown(start, given); // the named ones; those given back already hold nothing now
        }
        known.clear();
        return given[0];
    }

    /** @return false when it stopped early: the budget spent or Redis unavailable. */
    private boolean giveBackKnown(final long start, final int[] given)
    {
        for (final Watch watch : known.values())
        {
            if (ticker.nanos() - start >= PASS_BUDGET_NANOS)
            {
                return false;
            }
            if (!watch.slot.isCurrent() || LeaseWords.balanceVolatile(watch.slot.entry) <= 0)
            {
                continue;
            }
            final int outcome = giveBack(watch, CLOSE_REFUND_WAIT_NANOS);
            if (outcome == DOWN)
            {
                return false;
            }
            given[0] += outcome == GIVEN ? 1 : 0;
        }
        return ticker.nanos() - start < PASS_BUDGET_NANOS;
    }

    /** Remembers the file's leases a closed sibling refilled, when named. @return whether it remembered any. */
    private boolean rememberNamed(final Doors doors, final long start)
    {
        boolean any = false;
        for (final NamedLeases.Named lease : NamedLeases.of(doors))
        {
            final QuotaSlot slot = ticker.nanos() - start >= PASS_BUDGET_NANOS ||
                known.containsKey(new Ref(lease.kindAction(), lease.identifier())) ? null : lease.resolve(doors);
            if (slot != null)
            {
                remember(slot, lease.action());
                any = true;
            }
        }
        return any;
    }

    /**
     * An idle pass, on the janitor thread, waits for a refund as long as the source may take (1 s for Redis, for
     * loaded hosts) and 50 ms for a broken one: at 100 ms, as it once did, a refund answered in 150 ms was taken for
     * Redis unavailable and ended the pass (found by review).
     */
    private long idleRefundWaitNanos()
    {
        return TimeUnit.MILLISECONDS.toNanos(source.timeoutMs()) + LeaseWait.CHECK_WAIT_NANOS;
    }

    /**
     * One give-back, as the class says.
     *
     * @param waitNanos how long to wait for the refund's answer; none by then counts as unavailable.
     * @return {@link #GIVEN}, {@link #SKIPPED} or {@link #DOWN}.
     */
    private int giveBack(final Watch watch, final long waitNanos)
    {
        final Entry entry = watch.slot.entry;
        final long generation = watch.slot.generation;
        final long claim = LeaseRefill.claimRefill(entry, generation, ticker.nanos(), takeoverNanos, holders);
        if (claim == 0)
        {
            return SKIPPED; // a refill in flight: the lease is in use
        }
        try
        {
            final long tokens = LeaseBalance.takeAll(entry, generation);
            if (tokens == 0)
            {
                return SKIPPED;
            }
            final long sequence = LeaseRefill.sequence(entry);
            if (!LeaseRefill.reserveSequence(entry, generation, sequence))
            {
                LeaseBalance.giveBack(entry, generation, tokens); // nothing sent: the tokens are still the node's
                return SKIPPED;
            }
            final LeaseSource.Grant answer = await(source.refund(watch.action, watch.slot.identifier, sequence,
                tokens), waitNanos);
            switch (answer.status())
            {
                case LeaseSource.GRANTED:
                    return GIVEN;
                case LeaseSource.STALE:
                    // the server changed nothing: the tokens are still the node's, and its sequence is behind
                    LeaseBalance.giveBack(entry, generation, tokens);
                    LeaseRefill.skipStale(entry, generation, sequence + 1, System.currentTimeMillis());
                    return SKIPPED;
                default:
                    return DOWN; // maybe applied: the tokens are not put back, which can only under-admit
            }
        }
        finally
        {
            LeaseRefill.releaseRefill(entry, generation, claim);
        }
    }

    /**
     * @return the stage's answer, or {@link LeaseSource#UNAVAILABLE} after {@code maxNanos} (the source completes
     * within its bound; the margin only guards against a broken one).
     */
    static LeaseSource.Grant await(final CompletionStage<LeaseSource.Grant> stage, final long maxNanos)
    {
        try
        {
            final CompletableFuture<LeaseSource.Grant> future = stage.toCompletableFuture();
            return future.get(maxNanos, TimeUnit.NANOSECONDS);
        }
        catch (final Exception ex)
        {
            if (ex instanceof InterruptedException)
            {
                Thread.currentThread().interrupt();
            }
            return new LeaseSource.Grant(LeaseSource.UNAVAILABLE, 0, 0);
        }
    }
}
