package dev.floodgate;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;

/**
 * Immutable configuration of one {@link Floodgate}: the file, the per-action limits, the janitor interval
 * and the table capacity.
 *
 * <p>Keys carry over from the original rate limiter ({@link FloodgateKeys} names them; README.md says what
 * each means and its default). A malformed or out-of-range value fails with an {@link IllegalArgumentException}
 * that names the key, the value and what was expected: nothing falls back silently.
 */
public final class FloodgateConfig
{
    /**
     * Largest limit of any action, 2<sup>42</sup> - 1 per window (byte-scale quotas): a window shard word packs
     * its count into 42 bits. The token bucket serves limits up to 2<sup>34</sup> - 1 that
     * {@link #isExactBucketRate} accepts; a login control must be one of those, another action above that is
     * a window-only quota ({@link Floodgate#checkLimitInCaller} only).
     */
    public static final long MAX_LIMIT = ConfigKeys.MAX_LIMIT;
    /** Longest window: seven days. */
    public static final long MAX_WINDOW_MS = ConfigKeys.MAX_WINDOW_MS;
    /** Longest janitor interval: one day, so idle entries never age past what their arithmetic can tell. */
    public static final long MAX_CLEANUP_INTERVAL_MS = ConfigKeys.MAX_CLEANUP_INTERVAL_MS;
    /** Largest table. */
    public static final long MAX_CAPACITY = ConfigKeys.MAX_CAPACITY;
    /** Default table size in entries. */
    public static final long DEFAULT_CAPACITY = 100_000L;
    /** Default reclamation grace period. */
    public static final long DEFAULT_RECLAIM_GRACE_MS = 10_000L;
    /**
     * The least reclamation grace period: far above the longest a check can sit between its generation test and
     * its write (a cold check waits at most 50 ms for a segment; the worst check measured under load was 0.63 s
     * with the old node-wide guard). See NOTES.md, Reliability.
     */
    public static final long MIN_RECLAIM_GRACE_MS = ConfigKeys.MIN_RECLAIM_GRACE_MS;
    /** Default retry-after of a check refused because its entry could not be reached. */
    public static final long DEFAULT_UNREACHABLE_RETRY_AFTER_MS = 50L;
    /** Default janitor interval. */
    public static final long DEFAULT_CLEANUP_INTERVAL_MS = 300_000L;
    /** Default retry-after of a check refused for want of a cluster lease: short, a lease takes at most 50 ms. */
    public static final long DEFAULT_CLUSTER_RETRY_AFTER_MS = ClusterKeys.DEFAULT_RETRY_AFTER_MS;

    private final ConfigValues values; // this configuration's own copy, never changed

    /**
     * One action's limit.
     *
     * @param limit    requests per window; 0 means the action is not limited.
     * @param windowMs the window in milliseconds.
     */
    public record Limit(long limit, long windowMs)
    {
        /** @return true when checks of this action admit without touching the table. */
        public boolean isOff()
        {
            return limit == 0;
        }
    }

    FloodgateConfig(final ConfigValues values) // ConfigBuilder.build's, with a validated copy no one else holds
    {
        this.values = values;
    }

    /**
     * @param limit    a bucket's limit.
     * @param windowMs its window.
     * @return whether {@link Floodgate#checkLimit} enforces {@code limit} per {@code windowMs} exactly: the rule a
     * configuration's limits are validated against, for tools that choose a rate themselves.
     */
    public static boolean isExactBucketRate(final long limit, final long windowMs)
    {
        return ConfigKeys.isExactBucketRate(limit, windowMs);
    }

    /**
     * Reads every key from system properties {@code floodgate.<key>} and environment variables
     * {@code FLOODGATE_<KEY>} (the property wins where both are set; a blank value means the default).
     *
     * @return the configuration.
     * @throws IllegalArgumentException naming the first malformed key and its value.
     */
    public static FloodgateConfig fromEnvironment()
    {
        return fromSources(System.getenv(), System.getProperties());
    }

    /**
     * As {@link #fromEnvironment()}, from the given sources.
     *
     * @param env        environment variables, keyed {@code FLOODGATE_<KEY>}.
     * @param properties system properties, keyed {@code floodgate.<key>}.
     * @return the configuration.
     * @throws IllegalArgumentException naming the first malformed key and its value.
     */
    public static FloodgateConfig fromSources(final Map<String, String> env, final Properties properties)
    {
        return ConfigParser.fromSources(env, properties).build();
    }

    /**
     * Builds a configuration from key-value text, as an operator writes it; absent keys take their default.
     *
     * @param values key to value, keys as in the class documentation.
     * @return the configuration.
     * @throws IllegalArgumentException for an unknown key or a malformed value, naming both.
     */
    public static FloodgateConfig fromKeyValues(final Map<String, String> values)
    {
        return ConfigParser.fromKeyValues(values).build();
    }

    /** @return the redis://, rediss:// or redis-socket:// URI of the cluster quota; empty (the default) for none. */
    public String clusterRedisUri()
    {
        return values.clusterRedisUri;
    }

    /**
     * @param action an action.
     * @return its cluster limit as configured, whether or not a URI is set (see {@link #hasClusterQuota}): tokens
     * per window across every node; a limit or window of 0 (the default limit) for no cluster quota.
     */
    public Limit clusterLimit(final Action action)
    {
        return values.cluster[ConfigValues.row(action)].limit();
    }

    /**
     * @param action an action.
     * @return true when its checks need the cluster's admission too: a Redis URI is set and neither the cluster
     * limit nor its window is 0.
     */
    public boolean hasClusterQuota(final Action action)
    {
        return values.hasClusterQuota(action);
    }

    /** @return true when some action has a cluster quota, so the cluster classes (and Lettuce) are needed. */
    public boolean hasClusterQuota()
    {
        return values.hasClusterQuota();
    }

    /**
     * @param action an action with a cluster limit.
     * @return the tokens a node leases at a time, at most the cluster limit: as configured, or a tenth of the
     * cluster limit (at least 1) when configured as 0, the default.
     */
    public long clusterLease(final Action action)
    {
        return values.cluster[ConfigValues.row(action)].leaseSize();
    }

    /**
     * @param action an action.
     * @return true when a check that cannot get a lease because Redis is unavailable admits on the node's quota
     * alone ({@code local}, the default for PUBLISH, SUBSCRIBE and DASHBOARD_API: set the node limit to the cluster
     * limit / expected nodes for a safe local rate); false when it refuses with {@link #clusterRetryAfterMs()}
     * ({@code refuse}, the login controls' default).
     */
    public boolean clusterFallsBackLocal(final Action action)
    {
        return values.cluster[ConfigValues.row(action)].fallbackLocal();
    }

    /** @return the retry-after, 1 to 60000 ms (default 100), of a check refused for want of a cluster lease. */
    public long clusterRetryAfterMs()
    {
        return values.clusterRetryAfterMs;
    }

    /**
     * What a check of {@code action} answers when it cannot reach its entry in time (a live process held the
     * entry's segment longer than the check waits, or the table is full).
     *
     * @param action an action.
     * @return true to admit, counted as admitted (the quota may then be exceeded); false (the default) to refuse
     * with {@link #unreachableRetryAfterMs()}, which keeps every count exact.
     */
    public boolean admitsWhenUnreachable(final Action action)
    {
        return values.admitWhenUnreachable[ConfigValues.row(action)];
    }

    /** @return the retry-after, 1 to 60000 ms (default 50), of a check refused because its entry was unreachable. */
    public long unreachableRetryAfterMs()
    {
        return values.unreachableRetryAfterMs;
    }

    /**
     * A copy of this configuration with some policy keys changed, validated as the whole configuration is.
     *
     * @param values limit, window, mode or unreachable keys (e.g. {@code publish_rate_limit}) to their new values.
     * @return the new configuration.
     * @throws IllegalArgumentException naming the key and value, as {@link #fromKeyValues} does.
     */
    public FloodgateConfig withPolicyKeys(final Map<String, String> values)
    {
        return ConfigParser.withPolicyKeys(this, values, UnaryOperator.identity());
    }

    /** @param action an action. @return true: its refusals are counted but admitted; false (the default): enforced. */
    public boolean shadow(final Action action)
    {
        return values.shadow[ConfigValues.row(action)];
    }

    /** @return a builder holding every default. */
    public static Builder builder()
    {
        return new Builder(new ConfigValues());
    }

    /** @return a builder holding this configuration, to change a part of it. */
    public Builder toBuilder()
    {
        return new Builder(values.copy());
    }

    /**
     * @return the shared file, by default {@link #defaultFile()}: an absolute path, as every JVM of the node must
     * name the same table wherever it was started (a relative one is refused, naming it).
     */
    public Path file()
    {
        return values.file;
    }

    /** @return false when every check admits without touching the table. */
    public boolean enabled()
    {
        return values.enabled;
    }

    /** @param action an action. @return its limit; a limit of 0 switches it off (never a login control's). */
    public Limit limit(final Action action)
    {
        return values.limits[ConfigValues.row(action)];
    }

    /** @return the janitor's pass interval in milliseconds. */
    public long cleanupIntervalMs()
    {
        return values.cleanupIntervalMs;
    }

    /** @return the number of quota entries the table is sized for. */
    public long capacity()
    {
        return values.capacity;
    }

    /** @return the monotonic clock checks read; tests inject their own. */
    public Ticker ticker()
    {
        return values.ticker;
    }

    /**
     * @return how long the janitor leaves a tombstoned entry before removing it, and how old a heartbeat may be
     * before its process counts as frozen: at least {@link #MIN_RECLAIM_GRACE_MS}.
     */
    public long reclaimGraceMs()
    {
        return values.reclaimGraceMs;
    }

    /** @return true to create a new file 0640, so an operators' group may run the CLI; false (the default): 0600. */
    public boolean groupReadable()
    {
        return values.groupReadable;
    }

    /**
     * @return true (the default) to map every page of the table when opening it, so that no check takes a page
     * fault; false for a faster open of a very large table, whose checks then fault pages in as they reach them.
     */
    public boolean preTouch()
    {
        return values.preTouch;
    }

    /**
     * @return the default file: under {@code /dev/shm/floodgate/} where that exists, else under the temp dir
     * ({@code java.io.tmpdir}/floodgate/; a relative temp dir makes it relative, which a configuration refuses,
     * saying so).
     */
    public static Path defaultFile()
    {
        return DefaultFile.onThisHost().path();
    }

    @Override
    public String toString()
    {
        return "FloodgateConfig{" + values + '}';
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof FloodgateConfig that && values.equals(that.values);
    }

    @Override
    public int hashCode()
    {
        return values.hashCode();
    }

    /**
     * Holds every setting, at its default until set; each setter sets what the configuration's reader of the same
     * name returns. Validates on {@link #build()}, so errors name the key as an operator would write it.
     */
    public static final class Builder extends ConfigBuilder
    {
        private Builder(final ConfigValues values)
        {
            super(values);
        }
    }
}
