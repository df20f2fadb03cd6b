package dev.floodgate;

import java.util.Objects;

/**
 * The configuration's keys as an operator writes them: {@code publish_rate_limit} is the environment variable
 * {@code FLOODGATE_PUBLISH_RATE_LIMIT}, the system property {@code floodgate.publish_rate_limit} and the key of
 * {@link FloodgateConfig#fromKeyValues}. What each key means and its default are in the tables of
 * {@code ConfigKeys} and {@code ClusterKeys} (the cluster's), the classes that check them.
 *
 * <p>Stateless.
 */
public final class FloodgateKeys
{
    // The keys that name no action.
    public static final String KEY_ENABLED = ConfigKeys.ENABLED;
    public static final String KEY_CLEANUP_INTERVAL_MS = ConfigKeys.CLEANUP_INTERVAL_MS;
    public static final String KEY_FILE = ConfigKeys.FILE;
    public static final String KEY_CAPACITY = ConfigKeys.CAPACITY;
    public static final String KEY_GROUP_READABLE = ConfigKeys.GROUP_READABLE;
    public static final String KEY_PRE_TOUCH = ConfigKeys.PRE_TOUCH;
    public static final String KEY_UNREACHABLE_RETRY_AFTER_MS = ConfigKeys.UNREACHABLE_RETRY_AFTER_MS;
    /** The Redis the cluster quota is leased from (issue 12); blank: no cluster quota. */
    public static final String KEY_CLUSTER_REDIS_URI = ClusterKeys.REDIS_URI;
    /** The retry-after of a check refused for want of a cluster lease. */
    public static final String KEY_CLUSTER_RETRY_AFTER_MS = ClusterKeys.RETRY_AFTER_MS;

    private FloodgateKeys()
    {
    }

    /**
     * @param uri a value of {@link #KEY_CLUSTER_REDIS_URI} as the operator wrote it.
     * @return it as the engine's errors and logs show it: the user info (cut at the authority's last '@', since a
     * password may hold one) replaced by {@code ***}; unchanged when it has none. For tools that print the URI.
     */
    public static String redactedRedisUri(final String uri)
    {
        return ClusterKeys.redacted(uri);
    }

    /** @return every configuration key, in documentation order. */
    public static String[] keys()
    {
        return ConfigKeys.keys();
    }

    /** @param action an action. @return its limit key, e.g. {@code publish_rate_limit}. */
    public static String limitKey(final Action action)
    {
        return ConfigKeys.limitKey(Objects.requireNonNull(action, "action"));
    }

    /** @param action an action. @return its window key, e.g. {@code publish_rate_window_ms}. */
    public static String windowKey(final Action action)
    {
        return ConfigKeys.windowKey(Objects.requireNonNull(action, "action"));
    }

    /** @param action an action. @return its mode key, e.g. {@code publish_rate_mode}. */
    public static String modeKey(final Action action)
    {
        return ConfigKeys.modeKey(Objects.requireNonNull(action, "action"));
    }

    /**
     * @param action an action.
     * @return its unreachable-rule key, e.g. {@code publish_rate_unreachable}: {@code refuse} (the default) or
     * {@code admit}, as {@link FloodgateConfig#admitsWhenUnreachable} reads it.
     */
    public static String unreachableKey(final Action action)
    {
        return ConfigKeys.unreachableKey(Objects.requireNonNull(action, "action"));
    }

    /** @param action an action. @return its cluster limit key, e.g. {@code publish_cluster_rate_limit}. */
    public static String clusterLimitKey(final Action action)
    {
        return ClusterKeys.limitKey(Objects.requireNonNull(action, "action"));
    }

    /** @param action an action. @return its cluster window key, e.g. {@code publish_cluster_rate_window_ms}. */
    public static String clusterWindowKey(final Action action)
    {
        return ClusterKeys.windowKey(Objects.requireNonNull(action, "action"));
    }

    /** @param action an action. @return its lease size key, e.g. {@code publish_cluster_lease}. */
    public static String clusterLeaseKey(final Action action)
    {
        return ClusterKeys.leaseKey(Objects.requireNonNull(action, "action"));
    }

    /** @param action an action. @return its fallback key, e.g. {@code publish_cluster_fallback}: refuse or local. */
    public static String clusterFallbackKey(final Action action)
    {
        return ClusterKeys.fallbackKey(Objects.requireNonNull(action, "action"));
    }
}
