package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Probe;

/**
 * A check of an action whose node quota the node's policy switched off (limit 0) while this JVM's configuration
 * gives it a cluster quota: the cluster quota is the JVM's own configuration, which no publish can lift (the
 * publisher, {@code floodgate policy set} or a JVM without the cluster keys, need not know them), so such a check
 * is admitted only when the cluster admits it. It spends from the node's lease, looked up by name as a charge's
 * held quota is ({@link ClusterGate#admit} without a node slot, {@link LeaseWait#admitCold}), answers the action's
 * fallback when no lease comes ({@code local}: admitted, the node's quota being off), and is counted as the checks
 * of the action are ({@link Outcomes}). The first such check of each action logs it ({@link ClusterGate#nodeOff}).
 * A JVM without a cluster quota for the action admits it uncounted and untouched, as before.
 *
 * <p>Only the doors' and the charges' OFF branches come here: a check of an action that is on never does, so its
 * warm path is unchanged. Before, the OFF branch admitted every check of such an action uncounted, the cluster
 * quota included (NOTES, "What is left" of issue 12: 20 of 20 admitted against a cluster quota of 5 a minute).
 *
 * <p>Stateless; thread-safe.
 */
final class ClusterOnly
{
    private ClusterOnly()
    {
    }

    /**
     * A bucket or window check whose verdict was {@link Doors#OFF}: one call from the door, so the door's check
     * method grew by 6 bytecodes only and its claims not at all (the doors' methods are sized against C2's inlining
     * limit: NOTES, "Run 14", and "A node quota switched off").
     *
     * @param rule the action's rule in force (its mode: a shadow action's cluster refusal is counted and admitted).
     * @param held a handle's own slots (their hash), or null.
     * @return {@link CheckResult#ADMITTED}, the cluster's retry-after in ms, or {@link CheckResult#NEVER}.
     */
    static long off(final Doors doors, final CharSequence identifier, final Action action, final ActionRule rule,
        final long cost, final HeldQuota held)
    {
        SlotResolver.requireIdentifier(identifier);
        if (!doors.clustered(action))
        {
            return CheckResult.ADMITTED; // not counted, not even hashed: an action switched off must cost nothing
        }
        doors.cluster.nodeOff(doors.table().file(), action);
        final int hash = held != null ? held.hash : QuotaCache.hash(identifier);
        if (doors.overCluster(action, cost))
        {
            return Outcomes.never(doors, identifier, hash, action, rule);
        }
        final long now = doors.clock.nanos();
        final long result = doors.cluster.admit(doors, identifier, hash, action, cost, null);
        return Outcomes.outcome(doors, identifier, hash, action, rule, result, now);
    }

    /**
     * @param node the node's probe of an action: {@link Probes}' answer for an action off is {@code (0,
     *             Long.MAX_VALUE, 0, 0)}.
     * @return whether it is that answer for an action this JVM gives a cluster quota: then the probe is the
     * cluster's alone ({@link #node}).
     */
    static boolean offUnderCluster(final Doors doors, final Action action, final Probe node)
    {
        return node.limit() == 0 && node.remaining() == Long.MAX_VALUE && doors.clustered(action);
    }

    /**
     * @return the node's part of a probe of an action {@link #offUnderCluster}: no more than the cluster limit, as
     * a node that never saw the identifier knows it; the cluster's part then narrows it as for an action that is on.
     */
    static Probe node(final Doors doors, final Action action)
    {
        final long limit = doors.cluster.limit(action);
        return new Probe(limit, limit, 0, 0);
    }
}
