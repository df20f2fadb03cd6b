package dev.floodgate.door;

import dev.floodgate.Charge;
import dev.floodgate.store.CounterRegion;

import java.util.List;

/**
 * Settles a charge whose claims held under one policy ({@link Charges}): once every node quota admitted, each
 * quota of an action with a cluster quota spends its cost from the cluster's lease ({@link ClusterGate}), and a
 * cluster refusal refuses the whole as a node refusal does (the leases spent and the node claims are given back,
 * except a claim a conversion carried into new units, {@code Charging.held}, which stays counted with the entry as
 * {@link BucketGiveBack#giveBack} says); then each charge counts as one check of its action, with the outcome of
 * the whole; a charge of an action off at that moment is admitted and not counted, unless this JVM gives the action a
 * cluster quota ({@link ClusterOnly}: the lease spends for it, and it is counted). Stateless; thread-safe.
 */
final class ChargeSettlement
{
    private ChargeSettlement()
    {
    }

    /**
     * Records a validated charge: refusals, counters, and the give-back when a quota refused the whole.
     *
     * @return {@link CheckResult#ADMITTED}, or the refusing charge's result.
     */
    static long settle(final Doors doors, final List<Charge> charges, final PolicySnapshot policy,
        final Charges.Charging charging)
    {
        final int refused = charging.refused >= 0 || doors.cluster == null ? charging.refused :
            spendCluster(doors, charges, policy, charging);
        if (refused >= 0)
        {
            Charges.giveBackAll(doors, charges, charging);
        }
        for (int i = 0; i < charges.size(); i++)
        {
            final Charge c = charges.get(i);
            final int a = c.action().ordinal();
            if (charging.off[i])
            {
                continue; // switched off: not counted, like the one-action doors
            }
            final long result = charging.results[i];
            if (result != CheckResult.ADMITTED && !charging.unreachable[i] && refused < 0)
            {
                if (Outcomes.refusal(doors, c.identifier(), QuotaCache.hash(c.identifier()), c.action(),
                    policy.rule(c.action()), result, charging.nows[i]))
                {
                    continue; // a shadow quota never fails the whole: admitted with it, counted as shadowed
                }
            }
            else if (result != CheckResult.ADMITTED && !charging.unreachable[i] && i <= refused)
            {
                // refused with the whole, shadow quota or not: "admitted only because of shadow mode" it was not
                Outcomes.blocked(doors, c.identifier(), QuotaCache.hash(c.identifier()), c.action(), result,
                    charging.nows[i]);
            }
            doors.counters.increment(a, refused < 0 ? CounterRegion.ADMITTED : CounterRegion.REFUSED);
        }
        return refused < 0 ? CheckResult.ADMITTED : charging.results[refused];
    }

    /**
     * After every node quota admitted: spends each clustered quota's cost from its cluster lease, in list order. A
     * cluster refusal of a quota not in shadow mode refuses the whole, and the leases already spent are given
     * back (the caller gives the node claims back).
     *
     * @return the index of the quota whose cluster refused the whole, or -1.
     */
    private static int spendCluster(final Doors doors, final List<Charge> charges, final PolicySnapshot policy,
        final Charges.Charging charging)
    {
        for (int i = 0; i < charges.size(); i++)
        {
            final Charge c = charges.get(i);
            charging.clustered[i] = false;
            // a held quota has no slot but is admitted on its carried claim: the cluster spends for it too (found by
            // review: skipped, it was admitted past the cluster limit, ChargeHeldClusterTest)
            // a quota off on the node but under this JVM's cluster quota (ClusterOnly) has no slot and spends too
            if (charging.off[i] || charging.slots[i] == null && !charging.held[i] && !charging.clusterOnly[i] ||
                !doors.clustered(c.action()))
            {
                continue;
            }
            final long result = doors.cluster.admitInCharge(doors, c.identifier(), QuotaCache.hash(c.identifier()),
                c.action(), c.cost(), charging.slots[i]);
            if (result == CheckResult.ADMITTED || result == ClusterGate.ADMITTED_UNSPENT)
            {
                // only a spend goes back when a later quota refuses (found by review: a fallback's admission, which
                // spent nothing, was given back too, and put its cost in the balance; ChargeFallbackGiveBackTest)
                charging.clustered[i] = result == CheckResult.ADMITTED;
                continue;
            }
            charging.results[i] = result; // a shadow quota's refusal is counted as shadowed, and admitted
            if (!policy.rule(c.action()).shadow)
            {
                for (int j = 0; j < i; j++)
                {
                    final Charge spent = charges.get(j);
                    if (charging.clustered[j])
                    {
                        doors.cluster.giveBack(doors, spent.identifier(), QuotaCache.hash(spent.identifier()),
                            spent.action(), spent.cost());
                        charging.clustered[j] = false;
                    }
                }
                return i;
            }
        }
        return -1;
    }
}
