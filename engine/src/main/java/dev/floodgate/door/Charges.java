package dev.floodgate.door;

import dev.floodgate.Charge;

import java.util.List;

/**
 * Multi-quota charges, all or nothing (e.g. the records and the bytes of one produce): each quota is claimed in
 * list order through the doors' own claims ({@link BucketDoor#claim}, {@link WindowDoor#claim}) after the
 * prelude's verdict ({@link Doors#verdict}; and {@link #overTogether} for a quota named twice; a quota off on
 * the node but under this JVM's cluster quota claims nothing there, {@link ClusterOnly}) and, when one is refused,
 * the ones already claimed are given back. A quota of an action in shadow mode never fails the whole. All quotas
 * are claimed under one policy snapshot, and the policy generation is loaded again before anything is
 * recorded: if it changed, every claim is given back and the charge starts again (at most {@link Doors#ATTEMPTS}
 * times, then each quota answers as if its entry were unavailable). A charge whose claims held is settled once by
 * {@link ChargeSettlement}: the cluster's part and the counting. Allocates (a cold-ish path for produce requests
 * with several quotas). Stateless; thread-safe.
 */
final class Charges
{
    private Charges()
    {
    }

    /**
     * @param doors   the shared state and prelude: policy, slots, counting.
     * @param charges the quotas.
     * @return {@link CheckResult#ADMITTED}, or the refusing charge's result.
     */
    static long charge(final Doors doors, final List<Charge> charges)
    {
        final Charging charging = new Charging(charges.size());
        for (int attempt = 0; attempt < Doors.ATTEMPTS; attempt++)
        {
            final PolicySnapshot policy = doors.policy();
            if (claimAll(doors, charges, policy, charging))
            {
                return ChargeSettlement.settle(doors, charges, policy, charging);
            }
        }
        long refusal = CheckResult.ADMITTED;
        for (int i = 0; i < charges.size(); i++)
        {
            if (charging.off[i])
            {
                continue; // switched off when last judged: admitted, never counted, as in a check (found by review)
            }
            final long result = Outcomes.unavailable(doors, charges.get(i).action());
            refusal = refusal == CheckResult.ADMITTED ? result : refusal;
        }
        return refusal;
    }

    /** One charge's working state, reused across its attempts, then read by its settlement. */
    static final class Charging
    {
        final QuotaSlot[] slots;
        final long[][] receipts;
        final long[] nows;
        /** A bucket quota's claim: where its debt starts, for a give-back ({@link BucketGiveBack}). */
        final long[] starts;
        /**
         * A bucket quota's claim an attempt could not give back because a conversion moved the entry to new units
         * (and carried the claim along as debt): still counted, so the next attempt does not claim it again.
         */
        final boolean[] held;
        final long[] results;
        final boolean[] off;
        /**
         * Off on the node but for this JVM's cluster quota ({@link ClusterOnly}): no node claim; the settlement spends
         * its cost from the cluster's lease, and it is counted.
         */
        final boolean[] clusterOnly;
        /** Answered by the unreachable rule: counted as unreachable when resolved, never in a blocked counter. */
        final boolean[] unreachable;
        /** Spent from the cluster's lease (issue 12): given back if a later quota's cluster refuses. */
        final boolean[] clustered;
        int refused;

        Charging(final int n)
        {
            slots = new QuotaSlot[n];
            receipts = new long[n][];
            nows = new long[n];
            starts = new long[n];
            held = new boolean[n];
            results = new long[n];
            off = new boolean[n];
            clusterOnly = new boolean[n];
            unreachable = new boolean[n];
            clustered = new boolean[n];
        }
    }

    /**
     * Claims the quotas in order until one that is not in shadow mode is refused; records nothing.
     *
     * @return false when the policy changed before the claims were validated (all given back: start again).
     */
    private static boolean claimAll(final Doors doors, final List<Charge> charges, final PolicySnapshot policy,
        final Charging charging)
    {
        final int n = charges.size();
        for (final Charge c : charges)
        {
            final ActionRule rule = policy.rule(c.action());
            if (c.bucket() && !rule.isOff())
            {
                rule.bucket(c.action()); // a window-only quota throws here, before anything is claimed
            }
        }
        charging.refused = -1;
        boolean stale = false;
        for (int i = 0; i < n; i++)
        {
            final Charge c = charges.get(i);
            final ActionRule rule = policy.rule(c.action());
            charging.slots[i] = null;
            charging.results[i] = CheckResult.ADMITTED;
            charging.unreachable[i] = false;
            charging.nows[i] = c.bucket() ? doors.ticker.nanos() : doors.clock.nanos();
            final long nowMs = Math.floorDiv(charging.nows[i], 1_000_000L);
            final long unknownMs = c.bucket() ? 0 : rule.unknownForMs(nowMs); // see ActionRule.unknownForMs
            final long limit = unknownMs > 0 ? 0 : c.bucket() ? rule.limit : rule.cursor(nowMs).regime().limit();
            final int verdict = unknownMs > 0 ? Doors.CLAIM : Doors.verdict(limit, c.cost());
            charging.clusterOnly[i] = verdict == Doors.OFF && doors.clustered(c.action());
            charging.off[i] = verdict == Doors.OFF && !charging.clusterOnly[i];
            if (charging.off[i] || charging.refused >= 0 || stale)
            {
                continue; // off, or after the refusal: only the off-ness is needed, to leave it uncounted
            }
            final int hash = QuotaCache.hash(c.identifier());
            final long result;
            if (verdict == Doors.OVER || doors.overCluster(c.action(), c.cost()) ||
                verdict == Doors.CLAIM && unknownMs == 0 && n > 1 && overTogether(charges, i, limit))
            {
                result = CheckResult.NEVER;
            }
            else if (unknownMs > 0)
            {
                result = unknownMs;
            }
            else if (charging.clusterOnly[i])
            {
                doors.cluster.nodeOff(doors.table().file(), c.action());
                result = CheckResult.ADMITTED; // no node quota to claim: the cluster's part decides, at the settlement
            }
            else if (c.bucket() && charging.held[i])
            {
                // claimed by an earlier attempt and carried into the new units: claiming again would count it twice
                // (found by review: a charge with 19 tokens left for its 10 was refused, and 10 stayed counted)
                result = CheckResult.ADMITTED;
            }
            else if (c.bucket())
            {
                // the cluster's part comes once every node quota admitted
                final long claimed = BucketDoor.claim(doors, c.identifier(), hash, c.action(), rule, c.cost(),
                    charging.slots, charging.starts, i, null);
                charging.unreachable[i] = claimed == BucketDoor.UNREACHABLE;
                result = charging.unreachable[i] ? doors.unavailableResult(c.action()) : claimed;
            }
            else if (!doors.regimes.enter(c.action(), rule, rule.cursor(nowMs), policy.generation()))
            {
                charging.unreachable[i] = true;
                result = doors.unavailableResult(c.action());
            }
            else
            {
                final ActionRule.WindowCursor cursor = rule.cursor(nowMs);
                result = chargeWindow(doors, c, hash, policy, rule, cursor.number(),
                    Math.max(1, cursor.endMs() - nowMs), charging, i);
                stale = result == STALE_CHARGE;
            }
            charging.results[i] = result;
            // an unreachable quota refuses whatever its mode, as a one-action check does (Doors.unavailable)
            if (result != CheckResult.ADMITTED && !stale && (!rule.shadow || charging.unreachable[i]))
            {
                charging.refused = i;
            }
        }
        if (!stale && doors.policyRegion.generationAcquire() == policy.generation())
        {
            return true;
        }
        giveBackAll(doors, charges, charging);
        return false;
    }

    /**
     * @return whether the quotas of {@code charges} on the entry of the one at {@code i} (the same identifier, action
     * and door: several claims on one entry) cost more than {@code limit} together. Each fits alone, but the charge
     * can never be admitted whole, so it is answered {@link CheckResult#NEVER} as one cost over the limit is: each
     * attempt claimed the first, was refused the next and gave the first back, and the charge was answered with a
     * retry-after, forever (found by review: 6 + 6 of a bucket of 10 "retry in 200 ms", ChargeSameQuotaTwiceTest).
     * Not for a cluster quota: a node's lease balance may hold more than the cluster limit.
     */
    private static boolean overTogether(final List<Charge> charges, final int i, final long limit)
    {
        final Charge of = charges.get(i);
        long together = 0;
        for (final Charge c : charges)
        {
            if (c.bucket() == of.bucket() && c.action() == of.action() &&
                CharSequence.compare(c.identifier(), of.identifier()) == 0)
            {
                if (c.cost() > limit - together)
                {
                    return true;
                }
                together += c.cost();
            }
        }
        return false;
    }

    /** Returned by {@link #chargeWindow} when the policy changed under its claim. */
    private static final long STALE_CHARGE = Long.MIN_VALUE;

    private static long chargeWindow(final Doors doors, final Charge c, final int hash, final PolicySnapshot policy,
        final ActionRule rule, final long number, final long retryAfterMs, final Charging charging, final int i)
    {
        final long[] receipts = charging.receipts[i] == null ? WindowClaim.receipts(doors.shards) :
            charging.receipts[i];
        charging.receipts[i] = receipts;
        for (int attempt = 0; attempt < Doors.ATTEMPTS; attempt++)
        {
            switch (WindowDoor.claim(doors, c.identifier(), hash, c.action(), policy.generation(), rule, number,
                c.cost(), receipts, true, charging.slots, i, null))
            {
                case WindowClaim.ADMITTED:
                    return CheckResult.ADMITTED;
                case WindowClaim.REFUSED:
                    return retryAfterMs;
                case WindowClaim.STALE_POLICY:
                    return STALE_CHARGE;
                case WindowDoor.UNREACHABLE:
                    charging.unreachable[i] = true;
                    return doors.unavailableResult(c.action());
                default:
                    break; // STALE_ENTRY: resolve again
            }
        }
        charging.unreachable[i] = true;
        return doors.unavailableResult(c.action());
    }

    /** Gives back every claim the charge holds: a stale attempt's, or the whole's when a quota refused it. */
    static void giveBackAll(final Doors doors, final List<Charge> charges, final Charging charging)
    {
        for (int i = 0; i < charges.size(); i++)
        {
            final QuotaSlot slot = charging.slots[i];
            if (slot == null)
            {
                continue;
            }
            final Charge c = charges.get(i);
            if (c.bucket())
            {
                charging.held[i] = !BucketGiveBack.giveBack(slot.bucket, slot.entry, doors.ticker, c.cost(),
                    slot.generation, charging.starts[i]);
            }
            else
            {
                WindowClaim.giveBack(slot.entry, slot.generation, charging.receipts[i], doors.shards);
            }
            charging.slots[i] = null;
        }
    }
}
