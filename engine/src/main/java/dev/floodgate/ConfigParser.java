package dev.floodgate;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

import static dev.floodgate.FloodgateConfig.KEY_CAPACITY;
import static dev.floodgate.FloodgateConfig.KEY_CLEANUP_INTERVAL_MS;
import static dev.floodgate.FloodgateConfig.KEY_ENABLED;
import static dev.floodgate.FloodgateConfig.KEY_FILE;
import static dev.floodgate.FloodgateConfig.KEY_GROUP_READABLE;
import static dev.floodgate.FloodgateConfig.KEY_UNREACHABLE_RETRY_AFTER_MS;
import static dev.floodgate.FloodgateConfig.MAX_CAPACITY;
import static dev.floodgate.FloodgateConfig.MAX_CLEANUP_INTERVAL_MS;
import static dev.floodgate.FloodgateConfig.MAX_LIMIT;
import static dev.floodgate.FloodgateConfig.MAX_WINDOW_MS;
import static dev.floodgate.FloodgateConfig.keys;
import static dev.floodgate.FloodgateConfig.limitKey;
import static dev.floodgate.FloodgateConfig.modeKey;
import static dev.floodgate.FloodgateConfig.unreachableKey;
import static dev.floodgate.FloodgateConfig.windowKey;

/**
 * The configuration as an operator writes it (as Caffeine's {@code CaffeineSpec} is to {@code Caffeine}):
 * environment variables, system properties and key-value text parsed into a {@link FloodgateConfig.Builder},
 * each error naming the key and the value. {@link FloodgateConfig} owns the keys, the values and their
 * validation; its {@code fromEnvironment}, {@code fromSources} and {@code fromKeyValues} delegate here.
 * Stateless.
 */
final class ConfigParser
{
    static final String WINDOW_EXPECTED = "a whole number of milliseconds from 1 to " + MAX_WINDOW_MS;
    static final String CLEANUP_EXPECTED = "a whole number of milliseconds from 1 to " +
        MAX_CLEANUP_INTERVAL_MS;
    static final String CAPACITY_EXPECTED = "a whole number of entries from 1 to " + MAX_CAPACITY;

    private ConfigParser()
    {
    }

    /** See {@link FloodgateConfig#fromSources}. */
    static FloodgateConfig fromSources(final Map<String, String> env, final Properties properties)
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

    /** See {@link FloodgateConfig#fromKeyValues}. */
    static FloodgateConfig fromKeyValues(final Map<String, String> values)
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
                case KEY_ENABLED -> builder.enabled(parseBoolean(key, value));
                case KEY_CLEANUP_INTERVAL_MS -> builder.cleanupIntervalMs(parseLong(key, value, CLEANUP_EXPECTED));
                case KEY_CAPACITY -> builder.capacity(parseLong(key, value, CAPACITY_EXPECTED));
                case KEY_FILE -> builder.file(Path.of(value));
                case KEY_GROUP_READABLE -> builder.groupReadable(parseBoolean(key, value));
                case KEY_UNREACHABLE_RETRY_AFTER_MS -> builder.unreachableRetryAfterMs(parseLong(key, value,
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
        return builder.build();
    }

    static Action actionOf(final String key)
    {
        for (final Action action : Action.values())
        {
            if (key.equals(limitKey(action)) || key.equals(windowKey(action)) || key.equals(modeKey(action)) ||
                key.equals(unreachableKey(action)))
            {
                return action;
            }
        }
        throw new IllegalArgumentException("unknown configuration key '" + key + "': expected one of " +
            String.join(", ", keys()));
    }

    static final String UNREACHABLE_RETRY_EXPECTED = "a whole number of milliseconds from 1 to 60000";

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

    static String limitExpected(final Action action)
    {
        return "a whole number from " + (action.isSecurityControl() ? 1 : 0) + " to " + MAX_LIMIT +
            (action.isSecurityControl() ? " (a login control cannot be switched off)" : " (0 switches it off)");
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
