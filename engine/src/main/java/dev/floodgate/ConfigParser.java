package dev.floodgate;

import java.nio.file.Path;
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
import static dev.floodgate.ConfigKeys.UNREACHABLE_RETRY_AFTER_MS;
import static dev.floodgate.ConfigKeys.UNREACHABLE_RETRY_EXPECTED;
import static dev.floodgate.ConfigKeys.WINDOW_EXPECTED;
import static dev.floodgate.ConfigKeys.actionOf;
import static dev.floodgate.ConfigKeys.keys;
import static dev.floodgate.ConfigKeys.limitExpected;
import static dev.floodgate.ConfigKeys.limitKey;
import static dev.floodgate.ConfigKeys.modeKey;
import static dev.floodgate.ConfigKeys.unreachableKey;

/**
 * The configuration as an operator writes it, parsed into a {@link FloodgateConfig.Builder} (as Caffeine's
 * {@code CaffeineSpec} is to {@code Caffeine}): environment variables, system properties, key-value text and
 * policy keys, each error naming the key and the value. The parser knows the builder; the configuration knows
 * the parser only through its public factories ({@code fromEnvironment}, {@code fromSources},
 * {@code fromKeyValues}, {@code withPolicyKeys}), which hand their input straight here. The keys and what
 * their values must be are {@link ConfigKeys}'s. Stateless.
 */
final class ConfigParser
{
    private ConfigParser()
    {
    }

    /** See {@link FloodgateConfig#fromSources}. @return a builder holding every key set there. */
    static FloodgateConfig.Builder fromSources(final Map<String, String> env, final Properties properties)
    {
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
        final long[] limit = new long[Action.values().length];
        final long[] window = new long[Action.values().length];
        for (final Action action : Action.values())
        {
            limit[action.ordinal()] = action.defaultLimit();
            window[action.ordinal()] = action.defaultWindowMs();
        }
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
                case ENABLED -> builder.enabled(parseBoolean(key, value));
                case CLEANUP_INTERVAL_MS -> builder.cleanupIntervalMs(parseLong(key, value, CLEANUP_EXPECTED));
                case CAPACITY -> builder.capacity(parseLong(key, value, CAPACITY_EXPECTED));
                case FILE -> builder.file(Path.of(value));
                case GROUP_READABLE -> builder.groupReadable(parseBoolean(key, value));
                case UNREACHABLE_RETRY_AFTER_MS -> builder.unreachableRetryAfterMs(parseLong(key, value,
                    UNREACHABLE_RETRY_EXPECTED));
                default ->
                {
                    final Action action = actionOf(key);
                    if (key.equals(unreachableKey(action)))
                    {
                        builder.admitWhenUnreachable(action, parseUnreachable(key, value));
                    }
                    else if (key.equals(modeKey(action)))
                    {
                        builder.shadow(action, parseShadow(key, value));
                    }
                    else if (key.endsWith("_rate_limit"))
                    {
                        limit[action.ordinal()] = parseLong(key, value, limitExpected(action));
                    }
                    else
                    {
                        window[action.ordinal()] = parseLong(key, value, WINDOW_EXPECTED);
                    }
                }
            }
        }
        for (final Action action : Action.values())
        {
            builder.limit(action, limit[action.ordinal()], window[action.ordinal()]);
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
        final long[] limit = new long[Action.values().length];
        final long[] window = new long[Action.values().length];
        for (final Action action : Action.values())
        {
            limit[action.ordinal()] = base.limit(action).limit();
            window[action.ordinal()] = base.limit(action).windowMs();
        }
        for (final Map.Entry<String, String> entry : values.entrySet())
        {
            final String key = entry.getKey();
            final String value = entry.getValue() == null ? "" : entry.getValue().trim();
            final Action action = actionOf(key);
            if (key.equals(unreachableKey(action)))
            {
                builder.admitWhenUnreachable(action, parseUnreachable(names.apply(key), value));
            }
            else if (key.equals(modeKey(action)))
            {
                builder.shadow(action, parseShadow(names.apply(key), value));
            }
            else if (key.equals(limitKey(action)))
            {
                limit[action.ordinal()] = parseLong(names.apply(key), value, limitExpected(action));
            }
            else
            {
                window[action.ordinal()] = parseLong(names.apply(key), value, WINDOW_EXPECTED);
            }
        }
        for (final Action action : Action.values())
        {
            builder.limit(action, limit[action.ordinal()], window[action.ordinal()]);
        }
        return builder.build(names);
    }

    static long parseLong(final String key, final String value, final String expected)
    {
        try
        {
            return Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(key + "='" + value + "': expected " + expected, ex);
        }
    }

    static boolean parseShadow(final String key, final String value)
    {
        return parseChoice(key, value, "enforce", "shadow", false);
    }

    static boolean parseUnreachable(final String key, final String value)
    {
        return parseChoice(key, value, "refuse", "admit", false);
    }

    static boolean parseBoolean(final String key, final String value)
    {
        return parseChoice(key, value, "true", "false", true);
    }

    /**
     * @return {@code firstMeansTrue} for {@code first}, its opposite for {@code second} (any case, trimmed); else
     * an error naming both, in that order.
     */
    private static boolean parseChoice(final String key, final String value, final String first, final String second,
        final boolean firstMeansTrue)
    {
        final String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals(first) || v.equals(second))
        {
            return v.equals(first) == firstMeansTrue;
        }
        throw new IllegalArgumentException(key + "='" + value + "': expected " + first + " or " + second);
    }
}
