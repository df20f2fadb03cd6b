package dev.floodgate.metrics;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.Floodgate;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

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

    static void bind(final MeterRegistry registry, final FloodgateMetrics metrics, final Floodgate floodgate)
    {
        final Tags tags = metrics.tags();
        for (final Action action : Action.values())
        {
            final String tag = action.configPrefix();
            FunctionCounter.builder("floodgate.cluster.refused", floodgate,
                    f -> perAction(f, action, ClusterStats.Checks::refused))
                .description("checks of this process refused by the cluster (also counted refused in floodgate.checks)")
                .tag("action", tag).tags(tags).register(registry);
            FunctionCounter.builder("floodgate.cluster.fallbacks", floodgate,
                    f -> perAction(f, action, ClusterStats.Checks::fallbacksRefused))
                .description("checks of this process answered by the fallback for want of a lease")
                .tags("action", tag, "fallback", "refuse").tags(tags).register(registry);
            FunctionCounter.builder("floodgate.cluster.fallbacks", floodgate,
                    f -> perAction(f, action, ClusterStats.Checks::fallbacksLocal))
                .description("checks of this process answered by the fallback for want of a lease")
                .tags("action", tag, "fallback", "local").tags(tags).register(registry);
        }
        FunctionCounter.builder("floodgate.cluster.round.trips", floodgate,
                f -> process(f, ClusterStats.Process::roundTrips))
            .description("commands this process's client sent to Redis").tags(tags).register(registry);
        FunctionCounter.builder("floodgate.cluster.tokens.leased", floodgate,
                f -> process(f, ClusterStats.Process::tokensLeased))
            .description("tokens the cluster granted that this process committed to the node's balance")
            .tags(tags).register(registry);
        FunctionCounter.builder("floodgate.cluster.unavailable", floodgate,
                f -> process(f, ClusterStats.Process::unavailable))
            .description("this process's lease calls with no answer within their bound").tags(tags)
            .register(registry);
        Gauge.builder("floodgate.cluster.connected", floodgate,
                f -> process(f, p -> p.connection() == ClusterStats.Connection.UP ? 1 : 0))
            .description("1 while this process's connection to Redis is up, else 0").tags(tags)
            .register(registry);
        Gauge.builder("floodgate.cluster.leases", floodgate, f -> metrics.nodeFigure(f, s -> s.cluster().leasesHeld()))
            .description("lease entries in the node's table").tags(tags).register(registry);
        Gauge.builder("floodgate.cluster.tokens.unused", floodgate,
                f -> metrics.nodeFigure(f, s -> s.cluster().tokensUnused()))
            .description("tokens the node leased and has not spent").tags(tags).register(registry);
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
