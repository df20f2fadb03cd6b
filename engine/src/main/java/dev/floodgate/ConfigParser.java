package dev.floodgate;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.function.UnaryOperator;

import static dev.floodgate.ConfigKeys.CAPACITY;
import static dev.floodgate.ConfigKeys.CAPACITY_EXPECTED;
import static dev.floodgate.ConfigKeys.CLEANUP_EXPECTED;
import static dev.floodgate.ConfigKeys.CLEANUP_INTERVAL_MS;
import static dev.floodgate.ConfigKeys.ENABLED;
import static dev.floodgate.ConfigKeys.FILE;
import static dev.floodgate.ConfigKeys.GROUP_READABLE;
import static dev.floodgate.ConfigKeys.PRE_TOUCH;
import static dev.floodgate.ConfigKeys.UNREACHABLE_RETRY_AFTER_MS;
import static dev.floodgate.ConfigKeys.UNREACHABLE_RETRY_EXPECTED;
import static dev.floodgate.ConfigKeys.WINDOW_EXPECTED;
import static dev.floodgate.ConfigKeys.actionOf;
import static dev.floodgate.ConfigKeys.keys;
import static dev.floodgate.ConfigKeys.limitExpected;
import static dev.floodgate.ConfigKeys.limitKey;
import static dev.floodgate.ConfigKeys.modeKey;
import static dev.floodgate.ConfigKeys.unreachableKey;
import static dev.floodgate.ConfigText.parseBoolean;
import static dev.floodgate.ConfigText.parseChoice;
import static dev.floodgate.ConfigText.parseFile;
import static dev.floodgate.ConfigText.parseLong;
import static dev.floodgate.ConfigText.parseShadow;
import static dev.floodgate.ConfigText.parseUnreachable;

/**
 * The configuration as an operator writes it, parsed into a {@link FloodgateConfig.Builder} (as Caffeine's
 * {@code CaffeineSpec} is to {@code Caffeine}): environment variables, system properties, key-value text and
 * policy keys, each error naming the key and the value. The parser knows the builder and fills its
 * {@link ConfigValues} directly (an operator writes a limit and its window as two keys); the configuration knows
 * the parser only through its public factories ({@code fromEnvironment}, {@code fromSources},
 * {@code fromKeyValues}, {@code withPolicyKeys}), which hand their input straight here. The keys and what
 * their values must be are {@link ConfigKeys}'s, one value's text to its type {@link ConfigText}'s. Stateless.
 */
final class ConfigParser
{
    private ConfigParser()
    {
    }

    /** See {@link FloodgateConfig#fromSources}. @return a builder holding every key set there. */
    static FloodgateConfig.Builder fromSources(final Map<String, String> env, final Properties properties)
    {
        UnknownNames.warn(env, properties);
        final Map<String, String> values = new LinkedHashMap<>();
        for (final String key : keys())
        {
            String value = properties.getProperty("floodgate." + key);
            if (value == null)
            {
                value = env.get("FLOODGATE_" + key.toUpperCase(Locale.ROOT));
            }
            if (value != null && !value.isBlank())
            {
                values.put(key, value.trim());
            }
        }
        return fromKeyValues(values);
    }

    /** See {@link FloodgateConfig#fromKeyValues}. @return a builder holding every key set in {@code values}. */
    static FloodgateConfig.Builder fromKeyValues(final Map<String, String> values)
    {
        final FloodgateConfig.Builder builder = FloodgateConfig.builder();
        final ConfigValues settings = builder.values;
        for (final Map.Entry<String, String> entry : values.entrySet())
        {
            final String key = entry.getKey();
            final String value = entry.getValue();
            if (value == null || value.isBlank())
            {
                continue;
            }
            switch (key)
            {
                case ENABLED -> settings.enabled = parseBoolean(key, value);
                case CLEANUP_INTERVAL_MS -> settings.cleanupIntervalMs = parseLong(key, value, CLEANUP_EXPECTED);
                case CAPACITY -> settings.capacity = parseLong(key, value, CAPACITY_EXPECTED);
                case FILE -> settings.setFile(parseFile(key, value));
                case GROUP_READABLE -> settings.groupReadable = parseBoolean(key, value);
                case PRE_TOUCH -> settings.preTouch = parseBoolean(key, value);
                case UNREACHABLE_RETRY_AFTER_MS -> settings.unreachableRetryAfterMs = parseLong(key, value,
                    UNREACHABLE_RETRY_EXPECTED);
                case ClusterKeys.REDIS_URI -> settings.clusterRedisUri = value.trim();
                case ClusterKeys.RETRY_AFTER_MS -> settings.clusterRetryAfterMs = parseLong(key, value,
                    ClusterKeys.RETRY_EXPECTED);
                default ->
                {
                    if (ClusterKeys.actionOf(key) != null)
                    {
                        setCluster(settings, key, value);
                    }
                    else
                    {
                        setPerAction(settings, key, key, value);
                    }
                }
            }
        }
        return builder;
    }

    /**
     * See {@link FloodgateConfig#withPolicyKeys}: limit, window, mode and unreachable keys applied to a copy of
     * {@code base}.
     *
     * @param names a configuration key to the name the caller's user typed (e.g. {@code publish.limit}).
     * @return the new configuration, validated as the whole configuration is.
     */
    static FloodgateConfig withPolicyKeys(final FloodgateConfig base, final Map<String, String> values,
        final UnaryOperator<String> names)
    {
        final FloodgateConfig.Builder builder = base.toBuilder();
        setPolicyKeys(builder.values, values, names);
        return builder.build(names);
    }

    /**
     * See {@link FloodgatePolicy#checkAssignments}: the values of policy keys, each against its key's range, and
     * a login control's limit against its window only when both are given (else that needs the policy).
     *
     * @param names a configuration key to the name the caller's user typed (e.g. {@code publish.limit}).
     * @throws IllegalArgumentException as {@link #withPolicyKeys} would for the same value.
     */
    static void checkPolicyValues(final Map<String, String> values, final UnaryOperator<String> names)
    {
        final ConfigValues scratch = FloodgateConfig.builder().values;
        setPolicyKeys(scratch, values, names);
        // in action order, limit before window, as the whole configuration's validation reports them
        for (final Action action : Action.values())
        {
            final FloodgateConfig.Limit limit = scratch.limits[action.ordinal()];
            final boolean limitGiven = values.containsKey(limitKey(action));
            final boolean windowGiven = values.containsKey(ConfigKeys.windowKey(action));
            if (limitGiven && windowGiven)
            {
                ConfigKeys.validateLimit(action, limit.limit(), limit.windowMs(), names);
            }
            else if (limitGiven)
            {
                ConfigKeys.validateLimitAlone(action, limit.limit(), names);
            }
            else if (windowGiven)
            {
                ConfigKeys.validateWindowAlone(action, limit.windowMs(), names);
            }
        }
    }

    /** Parses each policy key's value into {@code settings}. @throws IllegalArgumentException for a malformed one. */
    private static void setPolicyKeys(final ConfigValues settings, final Map<String, String> values,
        final UnaryOperator<String> names)
    {
        for (final Map.Entry<String, String> entry : values.entrySet())
        {
            final String key = entry.getKey();
            final String value = entry.getValue() == null ? "" : entry.getValue().trim();
            if (ClusterKeys.actionOf(key) != null || key.startsWith("cluster_"))
            {
                throw new IllegalArgumentException(names.apply(key) + "='" + value + "': the cluster quota's keys " +
                    "are read at start, not changed by a policy (its bucket lives in Redis)");
            }
            ConfigKeys.policyActionOf(key, value); // a node's key or a misspelt one, named as such
            setPerAction(settings, key, names.apply(key), value);
        }
    }

    /**
     * @param key  a per-action key; a limit keeps its window, and a window its limit.
     * @param name the key as the caller's user spelled it, for errors.
     * @throws IllegalArgumentException when {@code key} names no action's, or its value is malformed.
     */
    private static void setPerAction(final ConfigValues settings, final String key, final String name,
        final String value)
    {
        final Action action = actionOf(key);
        final int i = action.ordinal();
        if (key.equals(unreachableKey(action)))
        {
            settings.admitWhenUnreachable[i] = parseUnreachable(name, value);
        }
        else if (key.equals(modeKey(action)))
        {
            settings.shadow[i] = parseShadow(name, value);
        }
        else if (key.equals(limitKey(action)))
        {
            settings.limits[i] = new FloodgateConfig.Limit(parseLong(name, value, limitExpected(action)),
                settings.limits[i].windowMs());
        }
        else
        {
            settings.limits[i] = new FloodgateConfig.Limit(settings.limits[i].limit(),
                parseLong(name, value, WINDOW_EXPECTED));
        }
    }

    /** @param key a per-action cluster key: a limit keeps its window, a window its limit. */
    private static void setCluster(final ConfigValues settings, final String key, final String value)
    {
        final Action action = ClusterKeys.actionOf(key);
        final ClusterSettings cluster = settings.cluster[action.ordinal()];
        final FloodgateConfig.Limit limit = cluster.limit();
        final ClusterSettings changed;
        if (key.equals(ClusterKeys.fallbackKey(action)))
        {
            changed = cluster.withFallbackLocal(parseChoice(key, value, "refuse", "local", false));
        }
        else if (key.equals(ClusterKeys.leaseKey(action)))
        {
            changed = cluster.withLease(parseLong(key, value, "a whole number of tokens, 0 for a tenth of the " +
                "cluster limit"));
        }
        else if (key.equals(ClusterKeys.limitKey(action)))
        {
            changed = cluster.withLimit(parseLong(key, value, ClusterKeys.limitExpected()), limit.windowMs());
        }
        else
        {
            changed = cluster.withLimit(limit.limit(), parseLong(key, value, ClusterKeys.windowExpected()));
        }
        settings.cluster[action.ordinal()] = changed;
    }
}
