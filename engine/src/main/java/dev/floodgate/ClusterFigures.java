package dev.floodgate;

import dev.floodgate.door.ClusterCounters;
import dev.floodgate.door.ClusterGate;
import dev.floodgate.door.LeaseSource;

import java.util.EnumMap;
import java.util.Map;

/** This process's cluster figures, read from the doors' {@link ClusterGate} into the public records. Stateless. */
final class ClusterFigures
{
    private ClusterFigures()
    {
    }

    /** @param gate the gate, null without a cluster quota. @return this process's connection. */
    static ClusterStats.Connection connection(final ClusterGate gate)
    {
        if (gate == null)
        {
            return ClusterStats.Connection.NONE;
        }
        return gate.source().connected() ? ClusterStats.Connection.UP : ClusterStats.Connection.DOWN;
    }

    /** @param gate the gate, null without a cluster quota. @return this process's figures. */
    static ClusterStats.Process process(final ClusterGate gate)
    {
        final Map<Action, ClusterStats.Checks> checks = new EnumMap<>(Action.class);
        final LeaseSource.Totals totals = gate == null ? LeaseSource.Totals.NONE : gate.source().totals();
        for (final Action action : Action.values())
        {
            final int a = action.ordinal();
            checks.put(action, gate == null ? new ClusterStats.Checks(0, 0, 0) : new ClusterStats.Checks(
                gate.counters().sum(a, ClusterCounters.REFUSED),
                gate.counters().sum(a, ClusterCounters.FALLBACK_REFUSED),
                gate.counters().sum(a, ClusterCounters.FALLBACK_LOCAL)));
        }
        return new ClusterStats.Process(connection(gate), totals.roundTrips(),
            gate == null ? 0 : gate.counters().total(ClusterCounters.LEASED), totals.tokensRefunded(), totals.unavailable(), Map.copyOf(checks));
    }
}
