package dev.floodgate;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.UnaryOperator;

/**
 * Every setting of one configuration, as plain fields starting at their defaults: what a
 * {@link FloodgateConfig.Builder} and {@link ConfigParser} fill, and, as a private copy no one changes, what a
 * {@link FloodgateConfig} holds. So the settings, their per-action tables (an action's cluster settings one
 * {@link ClusterSettings} value), their defaults, their check, whether they make a cluster quota, and their
 * equality and text are written once, not once in the value and again in its builder.
 *
 * <p>Not thread-safe: each instance belongs to one builder or one configuration.
 */
final class ConfigValues
{
    Path file;
    /**
     * Where {@link #file} came from while it is the default ({@link DefaultFile#origin()}), for its refusal; null once
     * it is set. Not a setting: equality ignores it.
     */
    String fileDefaultOrigin;
    boolean enabled = true;
    final FloodgateConfig.Limit[] limits = new FloodgateConfig.Limit[Action.values().length];
    final boolean[] shadow = new boolean[Action.values().length];
    long cleanupIntervalMs = FloodgateConfig.DEFAULT_CLEANUP_INTERVAL_MS;
    long capacity = FloodgateConfig.DEFAULT_CAPACITY;
    Ticker ticker = Ticker.system();
    long reclaimGraceMs = FloodgateConfig.DEFAULT_RECLAIM_GRACE_MS;
    boolean groupReadable;
    boolean preTouch = true;
    final boolean[] admitWhenUnreachable = new boolean[Action.values().length];
    long unreachableRetryAfterMs = FloodgateConfig.DEFAULT_UNREACHABLE_RETRY_AFTER_MS;
    String clusterRedisUri = "";
    final ClusterSettings[] cluster = new ClusterSettings[Action.values().length];
    long clusterRetryAfterMs = ClusterKeys.DEFAULT_RETRY_AFTER_MS;

    ConfigValues()
    {
        this(DefaultFile.onThisHost());
    }

    /** @param defaultFile the file until {@link #setFile} is called: this host's, or a test's. */
    ConfigValues(final DefaultFile defaultFile)
    {
        file = defaultFile.path();
        fileDefaultOrigin = defaultFile.origin();
        for (final Action action : Action.values())
        {
            limits[action.ordinal()] = new FloodgateConfig.Limit(action.defaultLimit(), action.defaultWindowMs());
            cluster[action.ordinal()] = ClusterSettings.defaults(action);
        }
    }

    /** Sets the file: the operator's from now on, refused as theirs if relative. */
    void setFile(final Path file)
    {
        this.file = file;
        fileDefaultOrigin = null;
    }

    /** @return {@code action}'s index in every per-action table; a null action fails here, named. */
    static int row(final Action action)
    {
        return Objects.requireNonNull(action, "action").ordinal();
    }

    /** Replaces {@code action}'s cluster settings with {@code change} of them, the rest kept. */
    void changeCluster(final Action action, final UnaryOperator<ClusterSettings> change)
    {
        cluster[row(action)] = change.apply(cluster[row(action)]);
    }

    /** See {@link FloodgateConfig#hasClusterQuota(Action)}. */
    boolean hasClusterQuota(final Action action)
    {
        final ClusterSettings settings = cluster[row(action)]; // a null action is named, with a URI or without
        return !clusterRedisUri.isEmpty() && settings.isOn();
    }

    /** See {@link FloodgateConfig#hasClusterQuota()}. */
    boolean hasClusterQuota()
    {
        for (final Action action : Action.values())
        {
            if (hasClusterQuota(action))
            {
                return true;
            }
        }
        return false;
    }

    /** @return an independent copy. */
    ConfigValues copy()
    {
        final ConfigValues copy = new ConfigValues();
        copy.file = file;
        copy.fileDefaultOrigin = fileDefaultOrigin;
        copy.enabled = enabled;
        System.arraycopy(limits, 0, copy.limits, 0, limits.length);
        System.arraycopy(shadow, 0, copy.shadow, 0, shadow.length);
        copy.cleanupIntervalMs = cleanupIntervalMs;
        copy.capacity = capacity;
        copy.ticker = ticker;
        copy.reclaimGraceMs = reclaimGraceMs;
        copy.groupReadable = groupReadable;
        copy.preTouch = preTouch;
        System.arraycopy(admitWhenUnreachable, 0, copy.admitWhenUnreachable, 0, admitWhenUnreachable.length);
        copy.unreachableRetryAfterMs = unreachableRetryAfterMs;
        copy.clusterRedisUri = clusterRedisUri;
        System.arraycopy(cluster, 0, copy.cluster, 0, cluster.length);
        copy.clusterRetryAfterMs = clusterRetryAfterMs;
        return copy;
    }

    /**
     * @param names as for {@link ConfigBuilder#build(UnaryOperator)}.
     * @throws IllegalArgumentException naming the key and value of the first out-of-range setting.
     */
    void validate(final UnaryOperator<String> names)
    {
        ConfigKeys.validateFile(file, fileDefaultOrigin);
        for (final Action action : Action.values())
        {
            final FloodgateConfig.Limit limit = limits[action.ordinal()];
            ConfigKeys.validateLimit(action, limit.limit(), limit.windowMs(), names);
        }
        ConfigKeys.validateSettings(cleanupIntervalMs, reclaimGraceMs, unreachableRetryAfterMs, capacity);
        ClusterKeys.validateUri(clusterRedisUri);
        for (final Action action : Action.values())
        {
            cluster[action.ordinal()].validate(action, limits[action.ordinal()].limit());
        }
        ClusterKeys.validateRetryAfter(clusterRetryAfterMs);
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof ConfigValues that && enabled == that.enabled &&
            cleanupIntervalMs == that.cleanupIntervalMs && capacity == that.capacity && file.equals(that.file) &&
            Arrays.equals(limits, that.limits) && Arrays.equals(shadow, that.shadow) && ticker.equals(that.ticker) &&
            reclaimGraceMs == that.reclaimGraceMs && groupReadable == that.groupReadable &&
            preTouch == that.preTouch &&
            Arrays.equals(admitWhenUnreachable, that.admitWhenUnreachable) &&
            unreachableRetryAfterMs == that.unreachableRetryAfterMs && clusterRedisUri.equals(that.clusterRedisUri) &&
            Arrays.equals(cluster, that.cluster) && clusterRetryAfterMs == that.clusterRetryAfterMs;
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(file, enabled, Arrays.hashCode(limits), cleanupIntervalMs, capacity, clusterRedisUri,
            Arrays.hashCode(cluster));
    }

    /** @return every setting, {@code file=...} first, as {@link FloodgateConfig#toString()} shows them. */
    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder("file=").append(file).append(", enabled=").append(enabled);
        for (final Action action : Action.values())
        {
            final FloodgateConfig.Limit limit = limits[action.ordinal()];
            text.append(", ").append(action.configPrefix()).append('=').append(limit.limit())
                .append('/').append(limit.windowMs()).append("ms").append(shadow[action.ordinal()] ? " shadow" : "");
        }
        return text.append(", cleanupIntervalMs=").append(cleanupIntervalMs)
            .append(", capacity=").append(capacity).append(", reclaimGraceMs=").append(reclaimGraceMs)
            .append(", groupReadable=").append(groupReadable).append(", preTouch=").append(preTouch)
            .append(", unreachableRetryAfterMs=")
            .append(unreachableRetryAfterMs).append(", admitWhenUnreachable=")
            .append(Arrays.toString(admitWhenUnreachable)).append(clusterText()).toString();
    }

    /** @return the cluster settings, the URI's password hidden; nothing more when no URI is set. */
    private String clusterText()
    {
        if (clusterRedisUri.isEmpty())
        {
            return ", cluster=off";
        }
        final StringBuilder text = new StringBuilder(", cluster=").append(ClusterKeys.redacted(clusterRedisUri));
        for (final Action action : Action.values())
        {
            if (cluster[action.ordinal()].isOn())
            {
                text.append(", ").append(action.configPrefix()).append("Cluster=")
                    .append(cluster[action.ordinal()].text());
            }
        }
        return text.append(", clusterRetryAfterMs=").append(clusterRetryAfterMs).toString();
    }
}
