package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;

/**
 * Door 1, the exact token bucket: a check, and the claim it shares with {@link Charges}. The prelude and the
 * counting are the {@link Doors}'.
 *
 * <p><b>Warm and cold.</b> A check's first claim on its cached slot is one of two small methods, one for an
 * action with a cluster quota and one without, so that each inlines into the check (C2 compiles a hot method of
 * more than {@code FreqInlineSize}, 325 bytecodes, on its own: the one claim method carrying both, 327, was
 * called, spilling registers around the call, on every check). Everything rarer (the entry changed under the
 * claim, a refusal of a clustered claim, the cluster's refusal) is in methods of its own, taking the same steps in
 * the same order as before the split (NOTES, "Run 14").
 *
 * <p><b>Bucket units across a policy change.</b> A bucket's TAT word is in units of its limit and window. The
 * entry records which (limit, window, version); the first check that finds the entry's version older than
 * its policy's converts the word under the segment's update lock ({@link BucketConversion}): the word frozen
 * with a side record first, then a new entry generation, the new units, the converted word (never equal to the
 * old one), the version; a process killed at any step leaves a state the next locker finishes or undoes.
 * A check in any process, on either policy, reads the TAT word and then the generation before its
 * compare-and-set
 * ({@link TokenBucket#tryAcquire(Entry, dev.floodgate.Ticker, long, long)}):
 * a frozen word is stale whatever the generation; if it read the converted word it sees the new generation
 * and resolves again; if it read the old word its compare-and-set either lands first (and its token is
 * converted with the debt) or fails. So no
 * check applies one policy's units to the other's word, and the tokens already spent carry over.
 *
 * <p>Stateless; thread-safe.
 */
final class BucketDoor
{
    static final int KIND = Entry.KIND_BUCKET << 8;
    /** Returned by the claims when the entry could not be had: the unreachable rule answers. */
    static final long UNREACHABLE = -1;
    /** Claims of one check when a conversion swaps the word under it, before it degrades. */
    private static final int CLAIMS = 3;

    private BucketDoor()
    {
    }

    /**
     * @param doors      the shared state and prelude.
     * @param identifier who.
     * @param action     what.
     * @param cost       tokens, at least 1.
     * @return {@link CheckResult#ADMITTED}, the retry-after in milliseconds, or {@link CheckResult#NEVER}.
     */
    static long check(final Doors doors, final CharSequence identifier, final Action action, final long cost,
        final HeldQuota held)
    {
        final ActionRule rule = doors.policy().rule(action);
        final int verdict = Doors.verdict(rule.limit, cost);
        if (verdict == Doors.OFF)
        {
            return ClusterOnly.off(doors, identifier, action, rule, cost, held); // free, but for a cluster quota
        }
        rule.bucket(action); // throws for a window-only quota, before anything is counted
        final int hash = held != null ? held.hash : QuotaCache.hash(identifier);
        if (verdict == Doors.OVER || doors.overCluster(action, cost))
        {
            return Outcomes.never(doors, identifier, hash, action, rule);
        }
        final long now = doors.clock.nanos(); // for the refusal's touch only: the bucket reads the ticker itself
        final long result = doors.clustered(action) ?
            claimClustered(doors, identifier, hash, action, rule, cost, held) :
            claimNodeOnly(doors, identifier, hash, action, rule, cost, held);
        if (result == UNREACHABLE)
        {
            return Outcomes.unavailable(doors, action);
        }
        return Outcomes.outcome(doors, identifier, hash, action, rule, result, now);
    }

    /**
     * A check's claim of an action without a cluster quota, warm: one {@link TokenBucket#tryAcquire} on the
     * prelude's slot (small: see the class's "Warm and cold"). A claim the entry's change made stale goes on in
     * {@link #claimFrom}, from its second attempt.
     *
     * @return {@link CheckResult#ADMITTED}, the retry-after in ms, or {@link #UNREACHABLE}.
     */
    private static long claimNodeOnly(final Doors doors, final CharSequence identifier, final int hash,
        final Action action, final ActionRule rule, final long cost, final HeldQuota held)
    {
        final QuotaSlot slot = doors.slot(identifier, hash, KIND | action.ordinal(), action, rule, rule.version, held);
        if (slot == null)
        {
            return UNREACHABLE;
        }
        final long result = slot.bucket.tryAcquire(slot.entry, doors.ticker, cost, slot.generation);
        return result != TokenBucket.STALE ? result :
            claimFrom(doors, identifier, hash, action, rule, cost, null, null, 0, held, false, 1);
    }

    /**
     * A check's claim of an action with a cluster quota, warm: one {@link BucketGiveBack#claimStart} on the
     * prelude's slot, then the cluster's part ({@link #spendCluster}); small, as {@link #claimNodeOnly}. A claim
     * that took nothing goes on in {@link #clusteredNotClaimed}.
     *
     * @return {@link CheckResult#ADMITTED}, the retry-after in ms (the node's or the cluster's), or
     * {@link #UNREACHABLE}.
     */
    private static long claimClustered(final Doors doors, final CharSequence identifier, final int hash,
        final Action action, final ActionRule rule, final long cost, final HeldQuota held)
    {
        final QuotaSlot slot = doors.slot(identifier, hash, KIND | action.ordinal(), action, rule, rule.version, held);
        if (slot == null)
        {
            return UNREACHABLE;
        }
        final long start = BucketGiveBack.claimStart(slot.bucket, slot.entry, doors.ticker, cost, slot.generation);
        return start != BucketGiveBack.NOT_CLAIMED ? spendCluster(doors, identifier, hash, action, cost, slot, start) :
            clusteredNotClaimed(doors, identifier, hash, action, rule, cost, held, slot);
    }

    /**
     * {@link #claimClustered}'s first claim took nothing: why ({@link BucketGiveBack#refusal}), claiming again on
     * the same slot while the answer is that the bucket refilled meanwhile; when the entry changed, the claim goes
     * on in {@link #claimFrom} from its second attempt. The same steps, in the same order, as {@link #claimFrom}'s.
     */
    private static long clusteredNotClaimed(final Doors doors, final CharSequence identifier, final int hash,
        final Action action, final ActionRule rule, final long cost, final HeldQuota held, final QuotaSlot slot)
    {
        while (true)
        {
            final long why = BucketGiveBack.refusal(slot.bucket, slot.entry, doors.ticker, cost, slot.generation);
            if (why != CheckResult.ADMITTED)
            {
                return why != TokenBucket.STALE ? why :
                    claimFrom(doors, identifier, hash, action, rule, cost, null, null, 0, held, true, 1);
            }
            final long start = BucketGiveBack.claimStart(slot.bucket, slot.entry, doors.ticker, cost,
                slot.generation);
            if (start != BucketGiveBack.NOT_CLAIMED)
            {
                return spendCluster(doors, identifier, hash, action, cost, slot, start);
            }
        }
    }

    /**
     * The cluster's part of a claim the node admitted ({@link ClusterGate#admit}); when the cluster refuses, the
     * node's tokens go back ({@link BucketGiveBack#giveBack}).
     *
     * @param start where the node's claim's debt starts.
     * @return {@link CheckResult#ADMITTED}, the cluster's retry-after in ms, or {@link CheckResult#NEVER}.
     */
    private static long spendCluster(final Doors doors, final CharSequence identifier, final int hash,
        final Action action, final long cost, final QuotaSlot slot, final long start)
    {
        final long cluster = doors.cluster.admit(doors, identifier, hash, action, cost, slot);
        if (cluster != CheckResult.ADMITTED)
        {
            BucketGiveBack.giveBack(slot.bucket, slot.entry, doors.ticker, cost, slot.generation, start);
        }
        return cluster;
    }

    /**
     * A charge's claim ({@link Charges}): takes the slot from the prelude (resolved when it is missing, evicted,
     * tombstoned or in older units), and tries again when a conversion swaps the word under the claim,
     * {@value #CLAIMS} times at most (then degrades rather than spins). Records nothing.
     *
     * @param claimed   when not null, receives at {@code i} the slot of an admitted claim (for a give-back).
     * @param starts    when not null, receives at {@code i} where an admitted claim's debt starts (for a give-back).
     * @param held      a handle's own slots, or null for this process's shared cache.
     * @return {@link CheckResult#ADMITTED}, the retry-after in ms, or {@link #UNREACHABLE}.
     */
    static long claim(final Doors doors, final CharSequence identifier, final int hash, final Action action,
        final ActionRule rule, final long cost, final QuotaSlot[] claimed, final long[] starts, final int i,
        final HeldQuota held)
    {
        return claimFrom(doors, identifier, hash, action, rule, cost, claimed, starts, i, held, false, 0);
    }

    /**
     * The claim with its retries: a charge's, and a check's after its warm claim ({@link #claimNodeOnly},
     * {@link #claimClustered}) found the entry changed. Parameters and result as {@link #claim}'s, and:
     *
     * @param clustered a check of an action with a cluster quota: an admitted claim is spent from the cluster's
     *                  lease too ({@link #spendCluster}), and given back when the cluster refuses.
     * @param first     the first attempt: 0 takes the slot from the prelude, a later one (after a swap the cached
     *                  slot is known stale) straight from the table.
     */
    private static long claimFrom(final Doors doors, final CharSequence identifier, final int hash,
        final Action action, final ActionRule rule, final long cost, final QuotaSlot[] claimed, final long[] starts,
        final int i, final HeldQuota held, final boolean clustered, final int first)
    {
        final int kindAction = KIND | action.ordinal();
        for (int attempt = first; attempt < CLAIMS; attempt++)
        {
            final QuotaSlot slot = attempt == 0 ?
                doors.slot(identifier, hash, kindAction, action, rule, rule.version, held) :
                doors.resolve(identifier, hash, kindAction, action, rule, rule.version);
            if (slot == null)
            {
                return UNREACHABLE;
            }
            long start = BucketGiveBack.NOT_CLAIMED;
            long result;
            if (clustered || starts != null)
            {
                // a claim that may be given back keeps where its debt starts (BucketGiveBack)
                do
                {
                    start = BucketGiveBack.claimStart(slot.bucket, slot.entry, doors.ticker, cost, slot.generation);
                    result = start != BucketGiveBack.NOT_CLAIMED ? CheckResult.ADMITTED :
                        BucketGiveBack.refusal(slot.bucket, slot.entry, doors.ticker, cost, slot.generation);
                }
                while (start == BucketGiveBack.NOT_CLAIMED && result == CheckResult.ADMITTED); // refilled meanwhile
                if (starts != null && result == CheckResult.ADMITTED)
                {
                    starts[i] = start;
                }
            }
            else
            {
                result = slot.bucket.tryAcquire(slot.entry, doors.ticker, cost, slot.generation);
            }
            if (clustered && result == CheckResult.ADMITTED)
            {
                return spendCluster(doors, identifier, hash, action, cost, slot, start);
            }
            if (result != TokenBucket.STALE)
            {
                if (claimed != null)
                {
                    claimed[i] = result == CheckResult.ADMITTED ? slot : null;
                }
                return result;
            }
        }
        return UNREACHABLE; // converted under every claim of this check
    }
}
