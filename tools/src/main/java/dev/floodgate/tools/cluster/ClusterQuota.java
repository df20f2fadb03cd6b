package dev.floodgate.tools.cluster;

import dev.floodgate.Action;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.FloodgateKeys;
import dev.floodgate.tools.format.WholeNumbers;

import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

/**
 * One action's cluster quota as {@code demo --cluster} and {@code bench --cluster-redis} give it to their worker
 * JVMs: validated by the engine's own configuration (the same rules and words as the
 * {@code <action>_cluster_*} keys) and passed on as {@code --cluster-redis URI --cluster-limit
 * action=limit/windowMs/lease}. Every worker refuses while Redis is unavailable (no local fallback), so what the
 * cluster admitted is judged against the cluster's quota alone.
 *
 * @param uri      the Redis the nodes lease from.
 * @param action   the clustered action.
 * @param limit    tokens per window across every node.
 * @param windowMs the cluster window.
 * @param lease    tokens a node leases at a time, as the engine resolves it (a tenth of the limit when 0 was given).
 */
public record ClusterQuota(String uri, Action action, long limit, long windowMs, long lease)
{
    /**
     * What the CLI takes for a Redis URI, as its errors say it: the engine's {@code cluster_redis_uri} less a blank
     * (no cluster quota, which here would be no run to judge) and a unix socket (a transport the CLI's jar lacks).
     */
    public static final String URI_EXPECTED = "redis://host[:port][/database] or rediss://host[:port][/database] " +
        "(a port from 1 to 65535, a numeric database)";

    /** The file of the configurations built only to check the cluster options: never opened; absolute, as required. */
    private static final Path UNOPENED = Path.of("/unopened.map");

    /**
     * @param uri      as {@code cluster_redis_uri}.
     * @param action   the action.
     * @param limit    as {@code <action>_cluster_rate_limit}.
     * @param windowMs as {@code <action>_cluster_rate_window_ms}.
     * @param lease    as {@code <action>_cluster_lease}, 0 for the engine's default.
     * @param usage    makes the usage error from a message that names the option and the expectation.
     * @return the quota, checked by {@link FloodgateConfig.Builder#build()}.
     */
    public static ClusterQuota of(final String uri, final Action action, final long limit, final long windowMs,
        final long lease, final Function<String, RuntimeException> usage)
    {
        if (uri == null || uri.isBlank())
        {
            throw usage.apply("--cluster-redis '" + uri + "': expected " + URI_EXPECTED);
        }
        try
        {
            // the URI alone first, by the engine's rule: its error about the whole configuration named every cluster
            // option beside the URI, and its own key and forms rather than the option's (found by review)
            FloodgateConfig.builder().file(UNOPENED).clusterRedisUri(uri).build();
        }
        catch (final IllegalArgumentException ex)
        {
            throw usage.apply("--cluster-redis " + FloodgateKeys.redactedRedisUri(uri) + ": expected " + URI_EXPECTED);
        }
        if (limit < 1)
        {
            throw usage.apply("--cluster-limit " + limit + ": expected at least 1");
        }
        if (lease < 0 || lease > limit)
        {
            throw usage.apply("--cluster-lease " + lease + ": expected 0 (a tenth of the limit) to the limit, " + limit);
        }
        try
        {
            final FloodgateConfig config = configure(FloodgateConfig.builder().file(UNOPENED)
                .limit(action, FloodgateConfig.MAX_LIMIT, 3_600_000L), uri, action, limit, windowMs, lease).build();
            return new ClusterQuota(uri.trim(), action, limit, windowMs, config.clusterLease(action));
        }
        catch (final IllegalArgumentException ex)
        {
            // the URI passed above: the values at fault are these (demo's URI is a placeholder the user never typed)
            throw usage.apply("--cluster-limit " + limit + " per " + windowMs + " ms" +
                (lease == 0 ? "" : " --cluster-lease " + lease) + ": " + ex.getMessage());
        }
    }

    private static FloodgateConfig.Builder configure(final FloodgateConfig.Builder builder, final String uri,
        final Action action, final long limit, final long windowMs, final long lease)
    {
        return builder.clusterRedisUri(uri).clusterLimit(action, limit, windowMs).clusterLease(action, lease)
            .clusterFallbackLocal(action, false);
    }

    /** @return the URI as the CLI prints it, without its password: {@link FloodgateKeys#redactedRedisUri}. */
    public String shownUri()
    {
        return FloodgateKeys.redactedRedisUri(uri);
    }

    /** @return the worker command's arguments for this quota. */
    public List<String> workerArgs()
    {
        return List.of("--cluster-redis", uri, "--cluster-limit",
            action.configPrefix() + "=" + limit + "/" + windowMs + "/" + lease);
    }

    /**
     * The worker's side of {@link #workerArgs()}.
     *
     * @param builder the worker's configuration.
     * @param uri     {@code --cluster-redis}, or null for none.
     * @param specs   {@code --cluster-limit} values, {@code action=limit/windowMs/lease}.
     * @throws IllegalArgumentException when a value is malformed.
     */
    public static void apply(final FloodgateConfig.Builder builder, final String uri, final List<String> specs)
    {
        for (final String spec : specs)
        {
            final String[] parts = spec.split("[=/]");
            if (parts.length != 4 || uri == null)
            {
                throw new IllegalArgumentException("--cluster-limit '" + spec + "': expected action=limit/windowMs/" +
                    "lease, with --cluster-redis");
            }
            configure(builder, uri, Action.parse(parts[0]), WholeNumbers.parseLong(parts[1]),
                WholeNumbers.parseLong(parts[2]), WholeNumbers.parseLong(parts[3]));
        }
    }

    /**
     * @param elapsedMs the cluster's time since the run began (server time).
     * @return what one identifier's cluster bucket can grant over that time: full at the start, plus its refill.
     */
    public long allowance(final long elapsedMs)
    {
        return limit + (long)Math.floor((double)limit * elapsedMs / windowMs);
    }
}
