package dev.floodgate;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * The node's policy as stored in the file: per action the limit, window and mode, at one generation. Every
 * JVM that maps the file enforces it; {@link Floodgate#reconfigure} publishes a new one.
 *
 * @param generation the policy generation (1 for the first publish of a file); 0 for a policy not yet
 *                   published.
 * @param rules      per action.
 */
public record FloodgatePolicy(long generation, Map<Action, Rule> rules)
{
    /** What a check does with a request it would refuse. */
    public enum Mode
    {
        /** Refuse it. */
        ENFORCE,
        /** Count it (blocked counters, stats) but admit it: to try a limit on live traffic. */
        SHADOW
    }

    /**
     * One action's rule.
     *
     * @param limit    tokens per window; 0 means not limited.
     * @param windowMs the window.
     * @param mode     enforce or shadow.
     */
    public record Rule(long limit, long windowMs, Mode mode)
    {
    }

    /** Copies the map, so a policy is immutable. */
    public FloodgatePolicy
    {
        rules = Collections.unmodifiableMap(new EnumMap<>(rules));
    }

    /**
     * @param config a configuration.
     * @return the policy part of it, unpublished (generation 0).
     */
    public static FloodgatePolicy of(final FloodgateConfig config)
    {
        final Map<Action, Rule> rules = new EnumMap<>(Action.class);
        for (final Action action : Action.values())
        {
            final FloodgateConfig.Limit limit = config.limit(action);
            rules.put(action, new Rule(limit.limit(), limit.windowMs(),
                config.shadow(action) ? Mode.SHADOW : Mode.ENFORCE));
        }
        return new FloodgatePolicy(0, rules);
    }

    /** @param action an action. @return its rule. @throws NullPointerException naming {@code action}. */
    public Rule rule(final Action action)
    {
        return rules.get(Objects.requireNonNull(action, "action")); // an EnumMap answers null for null
    }

    /**
     * @param base a configuration (file, capacity and the like).
     * @return {@code base} with this policy's limits, windows and modes.
     */
    public FloodgateConfig applyTo(final FloodgateConfig base)
    {
        final FloodgateConfig.Builder builder = base.toBuilder();
        for (final Action action : Action.values())
        {
            final Rule rule = rule(action);
            builder.limit(action, rule.limit(), rule.windowMs()).shadow(action, rule.mode() == Mode.SHADOW);
        }
        return builder.build();
    }

    /**
     * Parses operator assignments such as {@code publish.limit=1000}, {@code publish.window_ms=1000} or
     * {@code auth.mode=shadow} into configuration keys ({@code publish_rate_limit} ...). Values are checked
     * when applied ({@link FloodgateConfig#withPolicyKeys}), with the configuration's own messages.
     *
     * @param assignments {@code action.key=value}, key one of {@code limit}, {@code window_ms}, {@code mode}.
     * @return configuration key to value, in order.
     * @throws IllegalArgumentException naming the malformed assignment and what was expected, or naming a key
     * assigned twice ({@code publish.limit=5 publish.limit=6}: which one was meant is not for us to guess).
     */
    public static Map<String, String> parseAssignments(final List<String> assignments)
    {
        return parseAssignments(assignments, new LinkedHashMap<>());
    }

    /** @param spelled filled with configuration key to the name as the assignment wrote it. */
    private static Map<String, String> parseAssignments(final List<String> assignments,
        final Map<String, String> spelled)
    {
        Objects.requireNonNull(assignments, "assignments");
        final Map<String, String> keys = new LinkedHashMap<>();
        final Map<String, String> firstAssignment = new LinkedHashMap<>();
        for (final String text : assignments)
        {
            final int eq = text == null ? -1 : text.indexOf('=');
            final int dot = eq < 0 ? -1 : text.lastIndexOf('.', eq);
            if (eq < 0 || dot <= 0)
            {
                throw new IllegalArgumentException("'" + text + "': expected action.key=value, key one of limit, " +
                    "window_ms, mode (e.g. publish.limit=1000)");
            }
            final Action action = Action.parse(text.substring(0, dot));
            final String key = text.substring(dot + 1, eq).trim().toLowerCase(Locale.ROOT);
            final String value = text.substring(eq + 1).trim();
            final String configKey = switch (key)
            {
                case "limit" -> FloodgateKeys.limitKey(action);
                case "window_ms" -> FloodgateKeys.windowKey(action);
                case "mode" -> FloodgateKeys.modeKey(action);
                default -> throw new IllegalArgumentException("'" + text + "': unknown key '" + key + "'" +
                    KeySpelling.didYouMean(key, "limit", "window_ms", "mode") + ", expected limit, window_ms or mode");
            };
            final String first = firstAssignment.putIfAbsent(configKey, text);
            if (first != null)
            {
                throw new IllegalArgumentException("'" + text + "': " + text.substring(0, eq).trim() + " is " +
                    "already assigned by '" + first + "'; expected each key once");
            }
            keys.put(configKey, value);
            spelled.put(configKey, text.substring(0, eq).trim());
        }
        return keys;
    }

    /**
     * Applies operator assignments; errors name each key as it was typed ({@code publish.limit=-1}), and a key
     * the assignments did not mention but a check involves in the same syntax ({@code publish.window_ms}).
     *
     * @param base        the configuration to change (e.g. {@code policy().applyTo(gate.config())}).
     * @param assignments as {@link #parseAssignments}.
     * @return the changed, validated configuration, for {@link Floodgate#reconfigure}.
     * @throws IllegalArgumentException naming the assignment and what was expected.
     */
    public static FloodgateConfig withAssignments(final FloodgateConfig base, final List<String> assignments)
    {
        final Map<String, String> spelled = new LinkedHashMap<>();
        final Map<String, String> keys = parseAssignments(assignments, spelled);
        return ConfigParser.withPolicyKeys(base, keys, key -> spelled.getOrDefault(key, assignmentName(key)));
    }

    /**
     * Checks operator assignments without a policy to apply them to (a table no JVM has opened yet): each value
     * against its own key's range, with the messages {@link #withAssignments} gives for it, and a login control's
     * limit against its window (the token bucket's exactness) when the assignments give both. What needs the
     * policy is not checked: such a limit or window given alone, judged against the other half in force.
     *
     * @param assignments as {@link #parseAssignments}.
     * @throws IllegalArgumentException naming the assignment and what was expected.
     */
    public static void checkAssignments(final List<String> assignments)
    {
        final Map<String, String> spelled = new LinkedHashMap<>();
        final Map<String, String> keys = parseAssignments(assignments, spelled);
        ConfigParser.checkPolicyValues(keys, key -> spelled.getOrDefault(key, assignmentName(key)));
    }

    /** @return {@code publish.limit} for {@code publish_rate_limit}, and so on; other keys as they are. */
    private static String assignmentName(final String configKey)
    {
        for (final Action action : Action.values())
        {
            if (configKey.equals(FloodgateKeys.limitKey(action)))
            {
                return action.configPrefix() + ".limit";
            }
            if (configKey.equals(FloodgateKeys.windowKey(action)))
            {
                return action.configPrefix() + ".window_ms";
            }
            if (configKey.equals(FloodgateKeys.modeKey(action)))
            {
                return action.configPrefix() + ".mode";
            }
        }
        return configKey;
    }

    /**
     * @param other another policy.
     * @return one line per differing key, {@code key: this -> other}, in action order.
     */
    public List<String> differences(final FloodgatePolicy other)
    {
        final List<String> lines = new ArrayList<>();
        for (final Action action : Action.values())
        {
            final Rule a = rule(action);
            final Rule b = other.rule(action);
            if (a.limit() != b.limit())
            {
                lines.add(FloodgateKeys.limitKey(action) + ": " + a.limit() + " -> " + b.limit());
            }
            if (a.windowMs() != b.windowMs())
            {
                lines.add(FloodgateKeys.windowKey(action) + ": " + a.windowMs() + " -> " + b.windowMs());
            }
            if (a.mode() != b.mode())
            {
                lines.add(FloodgateKeys.modeKey(action) + ": " + name(a.mode()) + " -> " + name(b.mode()));
            }
        }
        return lines;
    }

    /** @return one line per action: {@code publish limit=5 window_ms=1000 mode=enforce}. */
    public String describe()
    {
        final StringBuilder text = new StringBuilder("generation ").append(generation).append('\n');
        for (final Action action : Action.values())
        {
            final Rule rule = rule(action);
            text.append(action.configPrefix()).append(" limit=").append(rule.limit()).append(" window_ms=")
                .append(rule.windowMs()).append(" mode=").append(name(rule.mode())).append('\n');
        }
        return text.toString();
    }

    private static String name(final Mode mode)
    {
        return mode.name().toLowerCase(Locale.ROOT);
    }
}
