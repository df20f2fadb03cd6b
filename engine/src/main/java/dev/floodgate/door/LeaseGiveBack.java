package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Ticker;
import dev.floodgate.store.Entry;
import dev.floodgate.store.LeaseWords;

import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Gives a node's unspent leased tokens back to the cluster's buckets (issue 12): a lease no JVM of the node has
 * spent from or refilled for one cluster window ({@link #giveBackIdle}, run on the janitor thread), and every
 * lease this JVM knows when it is the node's last to close ({@link #giveBackAll}).
 *
 * <p><b>One give-back</b> is {@link LeaseRefund}'s: the entry's protocol around one refund, and what it guarantees
 * under concurrency.
 *
 * <p><b>Which leases</b>: those this JVM refilled, remembered at each refill (off the warm path, which allocates
 * nothing) until the janitor reclaims their entry. The table's keys are hashes, so only a JVM that saw a lease's identifier can name its bucket to Redis;
 * at the node's last close, {@link NamedLeases} also names those whose identifier the entry's label holds whole,
 * so leases only a closed sibling knew are given back too when their identifiers fit the label; a longer one's
 * balance stays in the file for the node's next JVM (under-admission until then, bounded by the balance).
 *
 * <p><b>Bounded</b>: each refund of an idle pass waits at most the source's bound and 50 ms
 * ({@link LeaseRefund#idleRefundWaitNanos}), of a close 100 ms ({@link LeaseRefund#CLOSE_REFUND_WAIT_NANOS}: a
 * refund slower than that at close counts as unavailable, its tokens are lost to the bound); a pass stops starting
 * give-backs after {@link #PASS_BUDGET_NANOS} and at the first refund that finds Redis unavailable, so a down Redis
 * costs a pass at most one bound. Passes are serialised on this object. A refund's wait does not end at an interrupt
 * (its status is given back: a thread whose status is set is served like any other), and an idle pass in flight
 * when its JVM closes starts no give-back after its refund in flight, whose answer the close waits for before the
 * client closes ({@link #endIdle}). Thread-safe.
 */
public final class LeaseGiveBack
{
    /** A pass (and so a close) starts no give-back after this long: 1 s, hundreds of refunds on a LAN. */
    static final long PASS_BUDGET_NANOS = 1_000_000_000L;
    /** Idle passes run at least this often... */
    static final long MIN_PERIOD_MS = 100;
    /** ...and at most this rarely. */
    static final long MAX_PERIOD_MS = 60_000;

    private final Ticker ticker;
    private final long[] windowsNanos;
    private final LeaseRefund refunds;
    private final ConcurrentHashMap<Ref, Watch> known = new ConcurrentHashMap<>();
    private volatile boolean idleEnded; // the JVM is closing: no idle pass starts a give-back

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
        this.ticker = ticker;
        this.windowsNanos = new long[windowsMs.length];
        for (int a = 0; a < windowsMs.length; a++)
        {
            windowsNanos[a] = TimeUnit.MILLISECONDS.toNanos(windowsMs[a]);
        }
        this.refunds = new LeaseRefund(source, ticker, takeoverNanos, holders);
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
            if (ticker.nanos() - start >= PASS_BUDGET_NANOS || idleEnded)
            {
                break;
            }
            final int outcome = refunds.giveBack(watch.slot, watch.action, refunds.idleRefundWaitNanos());
            if (outcome == LeaseRefund.DOWN)
            {
                break;
            }
            if (outcome == LeaseRefund.GIVEN)
            {
                given++;
            }
        }
        return given;
    }

    /**
     * Ends the idle passes (this JVM is closing, before its client closes): none starts a give-back from now on, and
     * this waits for the one in flight, on whichever thread, to have its refund in flight answered, within that
     * refund's wait ({@link LeaseRefund#idleRefundWaitNanos}, an interrupt notwithstanding). Before, a close closed the
     * client under that refund, and its tokens, out of the file, were lost (found by review).
     */
    public void endIdle()
    {
        idleEnded = true;
        synchronized (this)
        {
            // the monitor is the wait: a pass holds it until its refund in flight is answered
        }
    }

    /**
     * Gives back every lease's balance (the node's last JVM is closing): those this JVM knows, then, while Redis
     * answers and the budget lasts, those {@link NamedLeases} finds (one scan of the table). Within
     * {@link #PASS_BUDGET_NANOS} plus one refund's wait and that scan, once an idle pass in flight has ended
     * ({@link #endIdle}); stops at the first refund that finds Redis unavailable, not at an interrupt. Throws
     * nothing: what is not given back stays in the file.
     *
     * @param doors the doors, whose table is scanned for the leases this JVM does not know.
     * @return the leases given back.
     */
    public int giveBackAll(final Doors doors)
    {
        endIdle(); // the idle pass in flight starts no further give-back: this one gives every lease back
        synchronized (this)
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
            final int outcome = refunds.giveBack(watch.slot, watch.action, LeaseRefund.CLOSE_REFUND_WAIT_NANOS);
            if (outcome == LeaseRefund.DOWN)
            {
                return false;
            }
            given[0] += outcome == LeaseRefund.GIVEN ? 1 : 0;
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
}
