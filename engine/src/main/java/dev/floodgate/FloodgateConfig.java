package dev.floodgate;

import dev.floodgate.door.TokenBucket;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.function.UnaryOperator;

import static dev.floodgate.ConfigParser.CAPACITY_EXPECTED;
import static dev.floodgate.ConfigParser.CLEANUP_EXPECTED;
import static dev.floodgate.ConfigParser.UNREACHABLE_RETRY_EXPECTED;
import static dev.floodgate.ConfigParser.WINDOW_EXPECTED;
import static dev.floodgate.ConfigParser.actionOf;
import static dev.floodgate.ConfigParser.limitExpected;
import static dev.floodgate.ConfigParser.parseLong;
import static dev.floodgate.ConfigParser.parseShadow;

/**
 * Immutable configuration of one {@link Floodgate}: the file, the per-action limits, the janitor interval
 * and the table capacity.
 *
 * <p>Keys carry over from the original rate limiter. Each is read from the system property
 * {@code floodgate.<key>} or, failing that, the environment variable {@code FLOODGATE_<KEY>}; a blank value
 * means the default. A malformed or out-of-range value fails with an {@link IllegalArgumentException} that
 * names the key, the value and what was expected: nothing falls back silently.
 *
 * <pre>
 * key                                default   meaning
 * rate_limit_enabled                 true      false: every check admits and touches nothing
 * auth_rate_limit / _window_ms       10/60000  login attempts per IP (cannot be 0)
 * dashboard_auth_rate_limit / ...    10/60000  dashboard logins per IP (cannot be 0)
 * dashboard_api_rate_limit / ...     300/60000 dashboard requests per session; 0 switches it off
 * publish_rate_limit / ...           0/1000    produce requests per user; 0 switches it off
 * subscribe_rate_limit / ...         0/60000   subscribe requests per user; 0 switches it off
 * &lt;action&gt;_rate_mode                 enforce   shadow: count what would be refused, but admit it
 * rate_limit_cleanup_interval_ms     300000    janitor pass interval
 * file                               /dev/shm/floodgate/floodgate.map (or under java.io.tmpdir)
 * capacity                           100000    entries the table is sized for
 * file_group_readable                false     create the file 0640 instead of 0600
 * </pre>
 */
public final class FloodgateConfig
{
    /** Largest limit of any action: a shard word packs its count into 24 bits. */
    public static final long MAX_LIMIT = (1L << 24) - 1;
    /** Longest window: seven days. */
    public static final long MAX_WINDOW_MS = 7L * 24 * 3600 * 1000;
    /** Longest janitor interval: one day, so idle entries never age past what their arithmetic can tell. */
    public static final long MAX_CLEANUP_INTERVAL_MS = 24L * 3600 * 1000;
    /** Largest table. */
    public static final long MAX_CAPACITY = 50_000_000L;
    /** Default table size in entries. */
    public static final long DEFAULT_CAPACITY = 100_000L;
    /** Default reclamation grace period. */
    public static final long DEFAULT_RECLAIM_GRACE_MS = 10_000L;
    /**
     * The least reclamation grace period: far above the longest a check can sit between its generation test and
     * its write (a cold check waits at most 50 ms for a segment; the worst check measured under load was 0.63 s
     * with the old node-wide guard). See NOTES.md, Reliability.
     */
    public static final long MIN_RECLAIM_GRACE_MS = 2_000L;
    /** Default retry-after of a check refused because its entry could not be reached. */
    public static final long DEFAULT_UNREACHABLE_RETRY_AFTER_MS = 50L;
    /** Default janitor interval. */
    public static final long DEFAULT_CLEANUP_INTERVAL_MS = 300_000L;

    // What a key's value must be; a malformed value and an out-of-range one get the same words.
    public static final String KEY_ENABLED = "rate_limit_enabled";
    public static final String KEY_CLEANUP_INTERVAL_MS = "rate_limit_cleanup_interval_ms";
    public static final String KEY_FILE = "file";
    public static final String KEY_CAPACITY = "capacity";
    public static final String KEY_GROUP_READABLE = "file_group_readable";
    public static final String KEY_UNREACHABLE_RETRY_AFTER_MS = "unreachable_retry_after_ms";

    private final Path file;
    private final boolean enabled;
    private final Limit[] limits;
    private final boolean[] shadow;
    private final long cleanupIntervalMs;
    private final long capacity;
    private final Ticker ticker;
    private final long reclaimGraceMs;
    private final boolean groupReadable;
    private final boolean[] admitWhenUnreachable;
    private final long unreachableRetryAfterMs;

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

    private FloodgateConfig(final Builder builder)
    {
        this.file = builder.file;
        this.enabled = builder.enabled;
        this.limits = builder.limits.clone();
        this.shadow = builder.shadow.clone();
        this.cleanupIntervalMs = builder.cleanupIntervalMs;
        this.capacity = builder.capacity;
        this.ticker = builder.ticker;
        this.reclaimGraceMs = builder.reclaimGraceMs;
        this.groupReadable = builder.groupReadable;
        this.admitWhenUnreachable = builder.admitWhenUnreachable.clone();
        this.unreachableRetryAfterMs = builder.unreachableRetryAfterMs;
    }

    /**
     * @param limit    a bucket's limit.
     * @param windowMs its window.
     * @return whether {@link Floodgate#checkLimit} enforces {@code limit} per {@code windowMs} exactly: the rule a
     * configuration's limits are validated against, for tools that choose a rate themselves.
     */
    public static boolean isExactBucketRate(final long limit, final long windowMs)
    {
        return TokenBucket.fits(limit, windowMs);
    }

    /**
     * Reads every key from system properties {@code floodgate.<key>} and environment variables
     * {@code FLOODGATE_<KEY>} (the property wins where both are set).
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
        return ConfigParser.fromSources(env, properties);
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
        return ConfigParser.fromKeyValues(values);
    }

    /** @return every configuration key, in documentation order. */
    public static String[] keys()
    {
        final Action[] actions = Action.values();
        final String[] keys = new String[6 + 4 * actions.length];
        int i = 0;
        keys[i++] = KEY_ENABLED;
        for (final Action action : actions)
        {
            keys[i++] = limitKey(action);
            keys[i++] = windowKey(action);
        }
        for (final Action action : actions)
        {
            keys[i++] = modeKey(action);
        }
        for (final Action action : actions)
        {
            keys[i++] = unreachableKey(action);
        }
        keys[i++] = KEY_UNREACHABLE_RETRY_AFTER_MS;
        keys[i++] = KEY_CLEANUP_INTERVAL_MS;
        keys[i++] = KEY_FILE;
        keys[i++] = KEY_CAPACITY;
        keys[i] = KEY_GROUP_READABLE;
        return keys;
    }

    /** @param action an action. @return its limit key, e.g. {@code publish_rate_limit}. */
    public static String limitKey(final Action action)
    {
        return action.configPrefix() + "_rate_limit";
    }

    /** @param action an action. @return its window key, e.g. {@code publish_rate_window_ms}. */
    public static String windowKey(final Action action)
    {
        return action.configPrefix() + "_rate_window_ms";
    }

    /** @param action an action. @return its mode key, e.g. {@code publish_rate_mode}. */
    public static String modeKey(final Action action)
    {
        return action.configPrefix() + "_rate_mode";
    }

    /**
     * @param action an action.
     * @return its unreachable-rule key, e.g. {@code publish_rate_unreachable}: what a check answers when it cannot
     * reach its entry in time ({@code refuse}, the default, or {@code admit}).
     */
    public static String unreachableKey(final Action action)
    {
        return action.configPrefix() + "_rate_unreachable";
    }

    /**
     * @param action an action.
     * @return true when a check of it that cannot reach its entry in time is admitted (and counted as admitted);
     * false (the default) when it is refused with {@link #unreachableRetryAfterMs()}, which keeps counts exact.
     */
    public boolean admitsWhenUnreachable(final Action action)
    {
        return admitWhenUnreachable[action.ordinal()];
    }

    /** @return the retry-after, in ms, of a check refused because its entry could not be reached in time. */
    public long unreachableRetryAfterMs()
    {
        return unreachableRetryAfterMs;
    }

    /**
     * A copy of this configuration with some policy keys changed, validated as the whole configuration is.
     *
     * @param values limit, window or mode keys (e.g. {@code publish_rate_limit}) to their new values.
     * @return the new configuration.
     * @throws IllegalArgumentException naming the key and value, as {@link #fromKeyValues} does.
     */
    public FloodgateConfig withPolicyKeys(final Map<String, String> values)
    {
        return withPolicyKeys(values, UnaryOperator.identity());
    }

    /**
     * As {@link #withPolicyKeys(Map)}, naming each key in errors as the caller's syntax spells it.
     *
     * @param values limit, window or mode keys to their new values.
     * @param names  a configuration key to the name the caller's user typed (e.g. {@code publish.limit}).
     * @return the new configuration.
     */
    FloodgateConfig withPolicyKeys(final Map<String, String> values, final UnaryOperator<String> names)
    {
        final Builder builder = toBuilder();
        for (final Map.Entry<String, String> entry : values.entrySet())
        {
            final String key = entry.getKey();
            final String value = entry.getValue() == null ? "" : entry.getValue().trim();
            final Action action = actionOf(key);
            final Limit old = builder.limits[action.ordinal()];
            if (key.equals(modeKey(action)))
            {
                builder.shadow(action, parseShadow(names.apply(key), value));
            }
            else if (key.equals(limitKey(action)))
            {
                builder.limit(action, parseLong(names.apply(key), value, limitExpected(action)), old.windowMs());
            }
            else
            {
                builder.limit(action, old.limit(), parseLong(names.apply(key), value, WINDOW_EXPECTED));
            }
        }
        return builder.build(names);
    }

    /** @param action an action. @return true when its refusals are counted but admitted. */
    public boolean shadow(final Action action)
    {
        return shadow[action.ordinal()];
    }

    /** @return a builder holding every default. */
    public static Builder builder()
    {
        return new Builder();
    }

    /** @return a builder holding this configuration, to change a part of it. */
    public Builder toBuilder()
    {
        final Builder builder = new Builder();
        builder.file = file;
        builder.enabled = enabled;
        System.arraycopy(limits, 0, builder.limits, 0, limits.length);
        System.arraycopy(shadow, 0, builder.shadow, 0, shadow.length);
        builder.cleanupIntervalMs = cleanupIntervalMs;
        builder.capacity = capacity;
        builder.ticker = ticker;
        builder.reclaimGraceMs = reclaimGraceMs;
        builder.groupReadable = groupReadable;
        System.arraycopy(admitWhenUnreachable, 0, builder.admitWhenUnreachable, 0, admitWhenUnreachable.length);
        builder.unreachableRetryAfterMs = unreachableRetryAfterMs;
        return builder;
    }

    /** @return the shared file. */
    public Path file()
    {
        return file;
    }

    /** @return false when every check admits without touching the table. */
    public boolean enabled()
    {
        return enabled;
    }

    /** @param action an action. @return its limit. */
    public Limit limit(final Action action)
    {
        return limits[action.ordinal()];
    }

    /** @return the janitor's pass interval in milliseconds. */
    public long cleanupIntervalMs()
    {
        return cleanupIntervalMs;
    }

    /** @return the number of quota entries the table is sized for. */
    public long capacity()
    {
        return capacity;
    }

    /** @return the monotonic clock checks read. */
    public Ticker ticker()
    {
        return ticker;
    }

    /**
     * @return how long the janitor leaves a tombstoned entry before removing it, and how old a heartbeat may be
     * before its process counts as frozen.
     */
    public long reclaimGraceMs()
    {
        return reclaimGraceMs;
    }

    /** @return true when a new file is created readable by the owner's group (0640), else 0600. */
    public boolean groupReadable()
    {
        return groupReadable;
    }

    /** @return the default file: under {@code /dev/shm/floodgate/} where that exists, else under the temp dir. */
    public static Path defaultFile()
    {
        final Path shm = Path.of("/dev/shm");
        final Path dir = Files.isDirectory(shm) ? shm.resolve("floodgate")
            : Path.of(System.getProperty("java.io.tmpdir"), "floodgate");
        return dir.resolve("floodgate.map");
    }

    @Override
    public String toString()
    {
        final StringBuilder text = new StringBuilder("FloodgateConfig{file=").append(file)
            .append(", enabled=").append(enabled);
        for (final Action action : Action.values())
        {
            final Limit limit = limits[action.ordinal()];
            text.append(", ").append(action.configPrefix()).append('=').append(limit.limit())
                .append('/').append(limit.windowMs()).append("ms").append(shadow[action.ordinal()] ? " shadow" : "");
        }
        return text.append(", cleanupIntervalMs=").append(cleanupIntervalMs)
            .append(", capacity=").append(capacity).append('}').toString();
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof FloodgateConfig that && enabled == that.enabled &&
            cleanupIntervalMs == that.cleanupIntervalMs && capacity == that.capacity && file.equals(that.file) &&
            Arrays.equals(limits, that.limits) && Arrays.equals(shadow, that.shadow) && ticker.equals(that.ticker) &&
            Arrays.equals(admitWhenUnreachable, that.admitWhenUnreachable) &&
            unreachableRetryAfterMs == that.unreachableRetryAfterMs;
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(file, enabled, Arrays.hashCode(limits), cleanupIntervalMs, capacity);
    }

    /** Validates on {@link #build()}, so errors name the key as an operator would write it. */
    public static final class Builder
    {
        private Path file = defaultFile();
        private boolean enabled = true;
        private final Limit[] limits = new Limit[Action.values().length];
        private final boolean[] shadow = new boolean[Action.values().length];
        private long cleanupIntervalMs = DEFAULT_CLEANUP_INTERVAL_MS;
        private long capacity = DEFAULT_CAPACITY;
        private Ticker ticker = Ticker.system();
        private long reclaimGraceMs = DEFAULT_RECLAIM_GRACE_MS;
        private boolean groupReadable;
        private final boolean[] admitWhenUnreachable = new boolean[Action.values().length];
        private long unreachableRetryAfterMs = DEFAULT_UNREACHABLE_RETRY_AFTER_MS;

        /**
         * What a check of {@code action} answers when it cannot reach its entry in time (a live process held the
         * entry's segment longer than the check waits, or the table is full).
         *
         * @param action the action.
         * @param admit  true to admit, counted as admitted (the quota may then be exceeded); false (the default)
         *               to refuse with {@link #unreachableRetryAfterMs(long)}, which keeps every count exact.
         * @return this.
         */
        public Builder admitWhenUnreachable(final Action action, final boolean admit)
        {
            this.admitWhenUnreachable[Objects.requireNonNull(action, "action").ordinal()] = admit;
            return this;
        }

        /**
         * @param retryAfterMs the retry-after of a check refused because its entry could not be reached, 1 to
         *                     60000 ms (default 50).
         * @return this.
         */
        public Builder unreachableRetryAfterMs(final long retryAfterMs)
        {
            this.unreachableRetryAfterMs = retryAfterMs;
            return this;
        }

        /**
         * @param groupReadable true to create the file 0640 (an operators' group may run the CLI), else 0600.
         * @return this.
         */
        public Builder groupReadable(final boolean groupReadable)
        {
            this.groupReadable = groupReadable;
            return this;
        }

        private Builder()
        {
            for (final Action action : Action.values())
            {
                limits[action.ordinal()] = new Limit(action.defaultLimit(), action.defaultWindowMs());
            }
        }

        /**
         * @param graceMs how long a tombstoned entry stands before removal; far longer than any check can sit
         *                between its generation test and its write. At least {@link #MIN_RECLAIM_GRACE_MS}.
         * @return this.
         */
        public Builder reclaimGraceMs(final long graceMs)
        {
            this.reclaimGraceMs = graceMs;
            return this;
        }

        /** @param file the shared file. @return this. */
        public Builder file(final Path file)
        {
            this.file = Objects.requireNonNull(file, "file");
            return this;
        }

        /** @param enabled false to admit every check without touching the table. @return this. */
        public Builder enabled(final boolean enabled)
        {
            this.enabled = enabled;
            return this;
        }

        /**
         * @param action   the action.
         * @param limit    requests per window; 0 switches off PUBLISH, SUBSCRIBE and DASHBOARD_API.
         * @param windowMs the window in milliseconds.
         * @return this.
         */
        public Builder limit(final Action action, final long limit, final long windowMs)
        {
            limits[Objects.requireNonNull(action, "action").ordinal()] = new Limit(limit, windowMs);
            return this;
        }

        /**
         * @param action the action.
         * @param shadow true to count what would be refused but admit it; false (the default) to enforce.
         * @return this.
         */
        public Builder shadow(final Action action, final boolean shadow)
        {
            this.shadow[Objects.requireNonNull(action, "action").ordinal()] = shadow;
            return this;
        }

        /** @param cleanupIntervalMs the janitor's pass interval. @return this. */
        public Builder cleanupIntervalMs(final long cleanupIntervalMs)
        {
            this.cleanupIntervalMs = cleanupIntervalMs;
            return this;
        }

        /** @param entries the number of quota entries the table is sized for. @return this. */
        public Builder capacity(final long entries)
        {
            this.capacity = entries;
            return this;
        }

        /** @param ticker the monotonic clock, injected by tests. @return this. */
        public Builder ticker(final Ticker ticker)
        {
            this.ticker = Objects.requireNonNull(ticker, "ticker");
            return this;
        }

        /**
         * @return the configuration.
         * @throws IllegalArgumentException naming the key and value of the first out-of-range setting.
         */
        public FloodgateConfig build()
        {
            return build(UnaryOperator.identity());
        }

        /** @param names a key to the name its errors use, as the caller's user spells it. */
        FloodgateConfig build(final UnaryOperator<String> names)
        {
            for (final Action action : Action.values())
            {
                validate(action, limits[action.ordinal()], names);
            }
            check(cleanupIntervalMs >= 1 && cleanupIntervalMs <= MAX_CLEANUP_INTERVAL_MS, KEY_CLEANUP_INTERVAL_MS,
                cleanupIntervalMs, CLEANUP_EXPECTED);
            check(reclaimGraceMs >= MIN_RECLAIM_GRACE_MS && reclaimGraceMs <= MAX_CLEANUP_INTERVAL_MS,
                "reclaim_grace_ms", reclaimGraceMs, "a whole number of milliseconds from " + MIN_RECLAIM_GRACE_MS +
                " to " + MAX_CLEANUP_INTERVAL_MS + " (far above the longest a check can take)");
            check(unreachableRetryAfterMs >= 1 && unreachableRetryAfterMs <= 60_000, KEY_UNREACHABLE_RETRY_AFTER_MS,
                unreachableRetryAfterMs, UNREACHABLE_RETRY_EXPECTED);
            check(capacity >= 1 && capacity <= MAX_CAPACITY, KEY_CAPACITY, capacity, CAPACITY_EXPECTED);
            return new FloodgateConfig(this);
        }

        private static void validate(final Action action, final Limit limit, final UnaryOperator<String> names)
        {
            final long min = action.isSecurityControl() ? 1 : 0;
            check(limit.limit() >= min && limit.limit() <= MAX_LIMIT, names.apply(limitKey(action)), limit.limit(),
                limitExpected(action));
            check(limit.windowMs() >= 1 && limit.windowMs() <= MAX_WINDOW_MS, names.apply(windowKey(action)),
                limit.windowMs(), WINDOW_EXPECTED);
            if (limit.limit() > 0 && !isExactBucketRate(limit.limit(), limit.windowMs()))
            {
                throw new IllegalArgumentException(names.apply(limitKey(action)) + "=" + limit.limit() + " with " +
                    names.apply(windowKey(action)) + "=" + limit.windowMs() + ": the token bucket cannot represent this rate " +
                    "exactly; expected limit / gcd(limit, window in ns) at most " +
                    TokenBucket.MAX_SCALE + " (e.g. 1000000 per 1000 ms, or 1009 per 60000 ms)");
            }
        }

        private static void check(final boolean ok, final String key, final long value, final String expected)
        {
            if (!ok)
            {
                throw new IllegalArgumentException(key + "=" + value + ": expected " + expected);
            }
        }
    }
}
