package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;

/**
 * Door 2, the per-CPU-sharded fixed window: a check, and the claim it shares with {@link Charges}. The prelude
 * and the counting are the {@link Doors}'.
 *
 * <p><b>Windows across a policy change.</b> See {@link PolicyPlanner}: the regime switches at a window
 * boundary, regimes number their windows apart, and caps follow the claimed window's number. A window claim
 * is validated against the policy generation after it lands and given back when the policy changed
 * ({@link WindowClaim}), so what a check admits never depends on how stale its snapshot was.
 *
 * <p>Stateless; thread-safe.
 */
final class WindowDoor
{
    static final int KIND = Entry.KIND_WINDOW << 8;
    /** Returned by {@link #claim} when the entry could not be had: the unreachable rule answers. */
    static final int UNREACHABLE = -1;

    private WindowDoor()
    {
    }

    /**
     * The claim is validated against the policy generation after it landed ({@link WindowClaim}); a check whose
     * policy changed meanwhile gives its claim back and checks again under the new one, at most
     * {@link Doors#ATTEMPTS} times, then answers as if the entry were unavailable. An action off at the check's
     * clock reading is admitted, uncounted, only when the generation is still the one that said so (and, when this
     * JVM gives it a cluster quota, only when the cluster admits it: {@link ClusterOnly}).
     *
     * @param doors      the shared state and prelude.
     * @param identifier who.
     * @param action     what.
     * @param cost       tokens, at least 1; all or nothing.
     * @return {@link CheckResult#ADMITTED}, the milliseconds to the window's end, or {@link CheckResult#NEVER}.
     */
    static long check(final Doors doors, final CharSequence identifier, final Action action, final long cost,
        final HeldQuota held)
    {
        for (int attempt = 0; attempt < Doors.ATTEMPTS; attempt++)
        {
            final PolicySnapshot policy = doors.policy();
            final ActionRule rule = policy.rule(action);
            final long nowNanos = doors.clock.nanos();
            final long nowMs = Math.floorDiv(nowNanos, 1_000_000L);
            final long unknownMs = rule.unknownForMs(nowMs);
            if (unknownMs > 0)
            {
                if (doors.policyRegion.generationAcquire() != policy.generation())
                {
                    continue; // a stale snapshot's regimes: the current one may cover the moment
                }
                // a moment the policy's regimes no longer cover: refused until the clock reaches them
                return Outcomes.outcome(doors, identifier, held != null ? held.hash : QuotaCache.hash(identifier),
                    action, rule, unknownMs, nowNanos);
            }
            final ActionRule.WindowCursor cursor = rule.cursor(nowMs);
            final int verdict = Doors.verdict(cursor.regime().limit(), cost);
            if (verdict == Doors.OFF && doors.policyRegion.generationAcquire() == policy.generation())
            {
                return ClusterOnly.off(doors, identifier, action, rule, cost, held); // as the bucket door's
            }
            final int hash = held != null ? held.hash : QuotaCache.hash(identifier);
            if (verdict != Doors.CLAIM || doors.overCluster(action, cost))
            {
                if (doors.policyRegion.generationAcquire() != policy.generation())
                {
                    continue; // the regime read may not be the one in force any more
                }
                return Outcomes.never(doors, identifier, hash, action, rule);
            }
            if (!doors.regimes.enter(action, rule, cursor, policy.generation()))
            {
                return Outcomes.unavailable(doors, action);
            }
            final boolean clustered = doors.clustered(action);
            final QuotaSlot slot = doors.slot(identifier, hash, KIND | action.ordinal(), action, rule,
                Doors.ANY_VERSION, held);
            if (slot == null)
            {
                return Outcomes.unavailable(doors, action);
            }
            final long result = clustered ?
                clustered(doors, identifier, hash, action, cost, policy, rule, cursor, slot, nowMs) :
                nodeOnly(doors, cost, policy, rule, cursor, slot, nowMs);
            if (result != STALE)
            {
                return Outcomes.outcome(doors, identifier, hash, action, rule, result, nowNanos);
            }
            // STALE_ENTRY: the cached slot fails isCurrent and is resolved again; STALE_POLICY: reloaded above
        }
        return Outcomes.unavailable(doors, action); // the policy or the entry changed under every attempt: do not spin
    }

    /** {@link #nodeOnly} and {@link #clustered}: the policy or the entry changed under the claim; check again. */
    private static final long STALE = Long.MIN_VALUE;

    /** @return {@link CheckResult#ADMITTED}, the retry-after in ms, or {@link #STALE}. */
    private static long nodeOnly(final Doors doors, final long cost, final PolicySnapshot policy,
        final ActionRule rule, final ActionRule.WindowCursor cursor, final QuotaSlot slot, final long nowMs)
    {
        final int claimed = WindowClaim.claim(slot.entry, slot.generation, doors.policyRegion, policy.generation(),
            rule, cursor.number(), cost, cost == 1 ? null : doors.scratch.get(), false);
        return claimed == WindowClaim.ADMITTED ? CheckResult.ADMITTED :
            claimed == WindowClaim.REFUSED ? Math.max(1, cursor.endMs() - nowMs) : STALE;
    }

    /**
     * The node's claim, then the cluster's ({@link ClusterGate#admit}); when the cluster refuses, the node's claim
     * goes back. A one-token claim keeps its receipt as a {@linkplain WindowClaim#claimOne ticket}.
     *
     * @return {@link CheckResult#ADMITTED}, the retry-after in ms, or {@link #STALE}.
     */
    private static long clustered(final Doors doors, final CharSequence identifier, final int hash,
        final Action action, final long cost, final PolicySnapshot policy, final ActionRule rule,
        final ActionRule.WindowCursor cursor, final QuotaSlot slot, final long nowMs)
    {
        final long number = cursor.number();
        if (cost == 1)
        {
            final long ticket = WindowClaim.claimOne(slot.entry, slot.generation, doors.policyRegion,
                policy.generation(), rule, number);
            if (ticket < 0)
            {
                return ticket == -WindowClaim.REFUSED ? Math.max(1, cursor.endMs() - nowMs) : STALE;
            }
            final long result = doors.cluster.admit(doors, identifier, hash, action, 1, slot);
            if (result != CheckResult.ADMITTED)
            {
                WindowClaim.giveBackOne(slot.entry, slot.generation, ticket, number);
            }
            return result;
        }
        final long[] receipts = doors.scratch.get();
        final int claimed = WindowClaim.claim(slot.entry, slot.generation, doors.policyRegion, policy.generation(),
            rule, number, cost, receipts, true);
        if (claimed != WindowClaim.ADMITTED)
        {
            return claimed == WindowClaim.REFUSED ? Math.max(1, cursor.endMs() - nowMs) : STALE;
        }
        final long result = doors.cluster.admit(doors, identifier, hash, action, cost, slot);
        if (result != CheckResult.ADMITTED)
        {
            WindowClaim.giveBack(slot.entry, slot.generation, receipts, doors.shards); // clears them too
        }
        else
        {
            java.util.Arrays.fill(receipts, 0); // kept for a give-back that was not needed
        }
        return result;
    }

    /**
     * A charge's claim: takes the slot from the prelude (resolved when it is missing, evicted or tombstoned) and
     * claims on it ({@link WindowClaim#claim}, whose parameters these are). Records nothing. A check makes the same
     * two calls itself, keeping the slot at hand for the cluster's lease link and a give-back.
     *
     * @param claimed when not null, receives at {@code i} the slot of an admitted claim (for a give-back).
     * @param held    a handle's own slots, or null for this process's shared cache.
     * @return a {@link WindowClaim} outcome, or {@link #UNREACHABLE}.
     */
    static int claim(final Doors doors, final CharSequence identifier, final int hash, final Action action,
        final long policyGeneration, final ActionRule rule, final long windowNumber, final long cost,
        final long[] receipts, final boolean keep, final QuotaSlot[] claimed, final int i, final HeldQuota held)
    {
        final QuotaSlot slot = doors.slot(identifier, hash, KIND | action.ordinal(), action, rule, Doors.ANY_VERSION,
            held);
        if (slot == null)
        {
            return UNREACHABLE;
        }
        final int outcome = WindowClaim.claim(slot.entry, slot.generation, doors.policyRegion, policyGeneration,
            rule, windowNumber, cost, receipts, keep);
        if (claimed != null)
        {
            claimed[i] = outcome == WindowClaim.ADMITTED ? slot : null;
        }
        return outcome;
    }
}
