package dev.floodgate.tools.cluster;

import dev.floodgate.Action;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.tools.format.Durations;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

import java.util.concurrent.TimeUnit;

/** {@code bench}'s options for a cluster quota on the benchmarked action (the engine's cluster keys). */
public final class ClusterOptions
{
    @Option(names = "--cluster-redis", paramLabel = "URI",
        description = "Give the action a cluster quota leased from this Redis (cluster_redis_uri, e.g. " +
            "redis://127.0.0.1:6379/0), and judge the run against it.")
    private String uri;

    @Option(names = "--cluster-limit", paramLabel = "N", defaultValue = "1000",
        description = "With --cluster-redis: per identifier, over every node, per --cluster-window " +
            "(<action>_cluster_rate_limit; default ${DEFAULT-VALUE}).")
    private long limit;

    @Option(names = "--cluster-window", paramLabel = "D", defaultValue = "60m",
        description = "With --cluster-redis: the cluster window, 1ms to 7d: " + Durations.FORMS + ", e.g. 60m, " +
            "1h, 10s, 500ms (default ${DEFAULT-VALUE}).")
    private String window;

    @Option(names = "--cluster-lease", paramLabel = "N", defaultValue = "0",
        description = "With --cluster-redis: tokens a node leases at a time (<action>_cluster_lease; default 0, " +
            "a tenth of the limit).")
    private long lease;

    /** @return true when {@code --cluster-redis} was given. */
    public boolean enabled()
    {
        return uri != null;
    }

    /**
     * @param spec   the command, for usage errors.
     * @param action the benchmarked action.
     * @return the validated quota, or null without {@code --cluster-redis}.
     * @throws ParameterException naming the option and what was expected.
     */
    public ClusterQuota quota(final CommandSpec spec, final Action action)
    {
        if (!enabled())
        {
            // a cluster option without the Redis would be ignored, and the run judged as a node-only one
            for (final String option : new String[] {"--cluster-limit", "--cluster-window", "--cluster-lease"})
            {
                if (spec.commandLine().getParseResult().hasMatchedOption(option))
                {
                    throw new ParameterException(spec.commandLine(), option + ": only with --cluster-redis URI, the " +
                        "Redis the cluster quota is leased from; without it the run has no cluster quota");
                }
            }
            return null;
        }
        final long windowMs;
        try
        {
            windowMs = TimeUnit.NANOSECONDS.toMillis(Durations.parse(window));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ParameterException(spec.commandLine(), "--cluster-window " + ex.getMessage());
        }
        if (windowMs < 1 || windowMs > FloodgateConfig.MAX_WINDOW_MS)
        {
            // in the option's words: the engine's would name its key, in ms, and a 0 this option refuses
            throw new ParameterException(spec.commandLine(), "--cluster-window '" + window + "': expected 1ms to " +
                "7d (" + TimeUnit.MILLISECONDS.toMinutes(FloodgateConfig.MAX_WINDOW_MS) + "m)");
        }
        final ClusterQuota quota = ClusterQuota.of(uri, action, limit, windowMs, lease,
            message -> new ParameterException(spec.commandLine(), message));
        if (!ServerConnection.hasTransportFor(quota.uri()))
        {
            throw new ParameterException(spec.commandLine(), "--cluster-redis " + quota.shownUri() + ": a unix " +
                "socket needs Netty's epoll or kqueue transport, which this CLI does not carry; expected " +
                ClusterQuota.URI_EXPECTED);
        }
        return quota;
    }
}
