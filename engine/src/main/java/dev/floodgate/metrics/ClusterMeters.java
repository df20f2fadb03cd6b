package dev.floodgate.metrics;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.Floodgate;

import java.util.function.ToLongFunction;

/**
 * The cluster quota's meters (issue 12), bound by {@link FloodgateMetrics} when the instance has a cluster quota.
 * This process's, from its heap ({@link Floodgate#processCluster()}): refusals by the cluster and fallbacks per
 * action, its client's round trips, tokens leased and unavailable calls, and whether it is connected. The node's,
 * from the file ({@link dev.floodgate.Stats#cluster()}): leases held and tokens leased but unspent. Tags are the
 * action and the fallback (never an identifier) and the binder's own. Every meter reads NaN once the instance is
 * closed.
 */
final class ClusterMeters
{
    private ClusterMeters()
    {
    }

    static void bind(final MeterRegistrar meters, final FloodgateMetrics metrics)
    {
        for (final Action action : Action.values())
        {
            final String tag = action.configPrefix();
            meters.counter("floodgate.cluster.refused",
                "checks of this process refused by the cluster (also counted refused in floodgate.checks)",
                f -> perAction(f, action, ClusterStats.Checks::refused), "action", tag);
            meters.counter("floodgate.cluster.fallbacks",
                "checks of this process answered by the fallback for want of a lease",
                f -> perAction(f, action, ClusterStats.Checks::fallbacksRefused), "action", tag, "fallback", "refuse");
            meters.counter("floodgate.cluster.fallbacks",
                "checks of this process answered by the fallback for want of a lease",
                f -> perAction(f, action, ClusterStats.Checks::fallbacksLocal), "action", tag, "fallback", "local");
        }
        meters.counter("floodgate.cluster.round.trips", "commands this process's client sent to Redis",
            f -> process(f, ClusterStats.Process::roundTrips));
        meters.counter("floodgate.cluster.tokens.leased",
            "tokens the cluster granted that this process committed to the node's balance",
            f -> process(f, ClusterStats.Process::tokensLeased));
        meters.counter("floodgate.cluster.unavailable", "this process's lease calls with no answer within their bound",
            f -> process(f, ClusterStats.Process::unavailable));
        meters.gauge("floodgate.cluster.connected", "1 while this process's connection to Redis is up, else 0",
            f -> process(f, p -> p.connection() == ClusterStats.Connection.UP ? 1 : 0));
        meters.gauge("floodgate.cluster.leases", "lease entries in the node's table",
            f -> metrics.nodeFigure(f, s -> s.cluster().leasesHeld()));
        meters.gauge("floodgate.cluster.tokens.unused", "tokens the node leased and has not spent",
            f -> metrics.nodeFigure(f, s -> s.cluster().tokensUnused()));
    }

    private static double process(final Floodgate floodgate, final ToLongFunction<ClusterStats.Process> figure)
    {
        try
        {
            return figure.applyAsLong(floodgate.processCluster());
        }
        catch (final IllegalStateException closed)
        {
            return Double.NaN;
        }
    }

    private static double perAction(final Floodgate floodgate, final Action action,
        final ToLongFunction<ClusterStats.Checks> figure)
    {
        return process(floodgate, p -> figure.applyAsLong(p.checks().get(action)));
    }
}
