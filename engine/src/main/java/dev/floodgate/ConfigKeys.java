package dev.floodgate;

import dev.floodgate.door.ShardedWindow;
import dev.floodgate.door.TokenBucket;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * The configuration's keys as an operator writes them, and what each value must be: the names, their order,
 * the bounds, and the words of every error. A malformed value ({@link ConfigParser}) and an out-of-range one
 * ({@link FloodgateConfig.Builder#build()}) get the same words, naming the key and the value. The bounds are
 * published on {@link FloodgateConfig}, which defines the defaults, and the key names on {@link FloodgateKeys}.
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
 * &lt;action&gt;_rate_unreachable          refuse    admit: a check that cannot reach its entry in time admits
 * unreachable_retry_after_ms         50        the retry-after of such a refusal
 * rate_limit_cleanup_interval_ms     300000    janitor pass interval
 * file                               /dev/shm/floodgate/floodgate.map (or under java.io.tmpdir); absolute
 * capacity                           100000    entries the table is sized for
 * file_group_readable                false     create the file 0640 instead of 0600
 * file_pre_touch                     true      map every page of the table when opening it, so checks take no
 *                                              page faults (0.1 s more per 39 MB, the default, on our test VM)
 * cluster_... (issue 12)                        see {@link ClusterKeys}
 * </pre>
 *
 * Stateless.
 */
final class ConfigKeys
{
    static final String ENABLED = "rate_limit_enabled";
    static final String CLEANUP_INTERVAL_MS = "rate_limit_cleanup_interval_ms";
    static final String FILE = "file";
    static final String CAPACITY = "capacity";
    static final String GROUP_READABLE = "file_group_readable";
    static final String PRE_TOUCH = "file_pre_touch";
    static final String UNREACHABLE_RETRY_AFTER_MS = "unreachable_retry_after_ms";

    // What a per-action key adds to the action's prefix.
    private static final String LIMIT = "_rate_limit";
    private static final String WINDOW = "_rate_window_ms";
    private static final String MODE = "_rate_mode";
    private static final String UNREACHABLE = "_rate_unreachable";

    // The bounds; FloodgateConfig publishes them and says why each is what it is.
    static final long MAX_LIMIT = ShardedWindow.MAX_CAP;
    static final long MAX_WINDOW_MS = 7L * 24 * 3600 * 1000;
    static final long MAX_CLEANUP_INTERVAL_MS = 24L * 3600 * 1000;
    static final long MAX_CAPACITY = 50_000_000L;
    static final long MIN_RECLAIM_GRACE_MS = 2_000L;
    static final long MAX_UNREACHABLE_RETRY_AFTER_MS = 60_000L;

    static final String WINDOW_EXPECTED = "a whole number of milliseconds from 1 to " + MAX_WINDOW_MS;
    static final String CLEANUP_EXPECTED = "a whole number of milliseconds from 1 to " + MAX_CLEANUP_INTERVAL_MS;
    static final String CAPACITY_EXPECTED = "a whole number of entries from 1 to " + MAX_CAPACITY;
    static final String UNREACHABLE_RETRY_EXPECTED = "a whole number of milliseconds from 1 to " +
        MAX_UNREACHABLE_RETRY_AFTER_MS;
    static final String FILE_EXPECTED = "an absolute path (e.g. /dev/shm/floodgate/floodgate.map): a relative one " +
        "is resolved against each JVM's working directory, so JVMs started in different directories would enforce " +
        "different tables";

    private ConfigKeys()
    {
    }

    /** See {@link FloodgateKeys#keys()}. */
    static String[] keys()
    {
        final List<String> keys = new ArrayList<>();
        keys.add(ENABLED);
        addPerAction(keys, LIMIT, WINDOW, MODE, UNREACHABLE);
        keys.addAll(List.of(UNREACHABLE_RETRY_AFTER_MS, CLEANUP_INTERVAL_MS, FILE, CAPACITY, GROUP_READABLE,
            PRE_TOUCH));
        keys.addAll(List.of(ClusterKeys.keys()));
        return keys.toArray(new String[0]);
    }

    /**
     * Adds every action's keys ending in {@code limit} and {@code window}, action by action (an operator sets the
     * two together), then its keys ending in each of {@code others}, suffix by suffix: the documentation order of
     * this class's keys and of {@link ClusterKeys}'s.
     */
    static void addPerAction(final List<String> keys, final String limit, final String window,
        final String... others)
    {
        for (final Action action : Action.values())
        {
            keys.add(action.configPrefix() + limit);
            keys.add(action.configPrefix() + window);
        }
        for (final String suffix : others)
        {
            for (final Action action : Action.values())
            {
                keys.add(action.configPrefix() + suffix);
            }
        }
    }

    /** @return the action whose prefix and one of {@code suffixes} make {@code key}, or null when none does. */
    static Action actionNamedBy(final String key, final String... suffixes)
    {
        for (final Action action : Action.values())
        {
            for (final String suffix : suffixes)
            {
                if (key.equals(action.configPrefix() + suffix))
                {
                    return action;
                }
            }
        }
        return null;
    }

    static String limitKey(final Action action)
    {
        return action.configPrefix() + LIMIT;
    }

    static String windowKey(final Action action)
    {
        return action.configPrefix() + WINDOW;
    }

    static String modeKey(final Action action)
    {
        return action.configPrefix() + MODE;
    }

    static String unreachableKey(final Action action)
    {
        return action.configPrefix() + UNREACHABLE;
    }

    /**
     * @param key a per-action key.
     * @return the action it names.
     * @throws IllegalArgumentException naming the key, the key it probably misspells ({@link KeySpelling}) and every
     * key there is, when it names no action's.
     */
    static Action actionOf(final String key)
    {
        final Action action = actionNamedBy(key, LIMIT, WINDOW, MODE, UNREACHABLE);
        if (action == null)
        {
            throw new IllegalArgumentException("unknown configuration key '" + key + "'" +
                KeySpelling.didYouMean(key, keys()) + ": expected one of " + String.join(", ", keys()));
        }
        return action;
    }

    /**
     * @param key   a key given as a policy change ({@link FloodgateConfig#withPolicyKeys}).
     * @param value its value, for the error.
     * @return the action it names.
     * @throws IllegalArgumentException naming the key and the keys a policy has: a node's key ({@code file},
     * {@code capacity} ...) as one a policy does not change, any other as unknown (with the policy key it probably
     * misspells).
     */
    static Action policyActionOf(final String key, final String value)
    {
        final Action action = actionNamedBy(key, LIMIT, WINDOW, MODE, UNREACHABLE);
        if (action != null)
        {
            return action;
        }
        final List<String> policyKeys = new ArrayList<>();
        addPerAction(policyKeys, LIMIT, WINDOW, MODE, UNREACHABLE);
        final String expected = "expected one of " + String.join(", ", policyKeys);
        if (List.of(keys()).contains(key))
        {
            throw new IllegalArgumentException(key + "='" + value + "': not a policy key (read when a JVM opens the " +
                "table; a policy changes limits, windows, modes and unreachable rules): " + expected);
        }
        throw new IllegalArgumentException("unknown policy key '" + key + "'" +
            KeySpelling.didYouMean(key, policyKeys.toArray(new String[0])) + ": " + expected);
    }

    static String limitExpected(final Action action)
    {
        return "a whole number from " + (action.isSecurityControl() ? 1 : 0) + " to " +
            (action.isSecurityControl() ? TokenBucket.MAX_LIMIT : MAX_LIMIT) +
            (action.isSecurityControl() ? " (a login control cannot be switched off)" : " (0 switches it off)");
    }

    /** See {@link FloodgateConfig#isExactBucketRate}. */
    static boolean isExactBucketRate(final long limit, final long windowMs)
    {
        return TokenBucket.fits(limit, windowMs);
    }

    /**
     * @param names a key to the name its errors use, as the caller's user spells it.
     * @throws IllegalArgumentException naming the key, the value and what was expected, when {@code action}'s
     * limit or window is out of range, or when the action is a login control (served by the token bucket
     * only) and the token bucket cannot represent their rate exactly. Another action's limit the bucket
     * cannot represent is a window-only quota: {@code checkLimitInCaller} serves it, the bucket refuses to.
     */
    static void validateLimit(final Action action, final long limit, final long windowMs,
        final UnaryOperator<String> names)
    {
        validateLimitAlone(action, limit, names);
        validateWindowAlone(action, windowMs, names);
        if (action.isSecurityControl() && !isExactBucketRate(limit, windowMs))
        {
            throw new IllegalArgumentException(names.apply(limitKey(action)) + "=" + limit + " with " +
                names.apply(windowKey(action)) + "=" + windowMs + ": the token bucket cannot represent this rate " +
                "exactly; expected limit / gcd(limit, window in ns) at most " +
                TokenBucket.MAX_SCALE + " (e.g. 1000000 per 1000 ms, or 1009 per 60000 ms)");
        }
    }

    /** @throws IllegalArgumentException naming the key and the value, when {@code limit} is out of its range. */
    static void validateLimitAlone(final Action action, final long limit, final UnaryOperator<String> names)
    {
        final long min = action.isSecurityControl() ? 1 : 0;
        final long max = action.isSecurityControl() ? TokenBucket.MAX_LIMIT : MAX_LIMIT;
        check(limit >= min && limit <= max, names.apply(limitKey(action)), limit, limitExpected(action));
    }

    /** @throws IllegalArgumentException naming the key and the value, when {@code windowMs} is out of its range. */
    static void validateWindowAlone(final Action action, final long windowMs, final UnaryOperator<String> names)
    {
        check(windowMs >= 1 && windowMs <= MAX_WINDOW_MS, names.apply(windowKey(action)), windowMs, WINDOW_EXPECTED);
    }

    /**
     * Refused rather than resolved: the engine cannot know which directory the node's other JVMs resolve it
     * against, and one node enforcing two tables, each JVM its own, is the failure the file exists to prevent.
     *
     * @param defaultOrigin where {@code file} came from when it is the default ({@link DefaultFile#origin()}), the
     *                      operator never having written it; null when they set it.
     * @throws IllegalArgumentException naming the key and the value, when {@code file} is relative; for a relative
     * default (a relative java.io.tmpdir), where it came from and what to set.
     */
    static void validateFile(final Path file, final String defaultOrigin)
    {
        if (file.isAbsolute())
        {
            return;
        }
        if (defaultOrigin == null)
        {
            throw new IllegalArgumentException(FILE + "='" + file + "': expected " + FILE_EXPECTED);
        }
        throw new IllegalArgumentException(FILE + "='" + file + "' (the default, from " + defaultOrigin +
            "): expected " + FILE_EXPECTED + "; set " + FILE + " (FLOODGATE_FILE, floodgate." + FILE +
            " or the builder's file) to an absolute path, or start the JVM with an absolute java.io.tmpdir");
    }

    /** @throws IllegalArgumentException naming the key and value of the first setting out of range. */
    static void validateSettings(final long cleanupIntervalMs, final long reclaimGraceMs,
        final long unreachableRetryAfterMs, final long capacity)
    {
        check(cleanupIntervalMs >= 1 && cleanupIntervalMs <= MAX_CLEANUP_INTERVAL_MS, CLEANUP_INTERVAL_MS,
            cleanupIntervalMs, CLEANUP_EXPECTED);
        check(reclaimGraceMs >= MIN_RECLAIM_GRACE_MS && reclaimGraceMs <= MAX_CLEANUP_INTERVAL_MS,
            "reclaim_grace_ms", reclaimGraceMs, "a whole number of milliseconds from " + MIN_RECLAIM_GRACE_MS +
            " to " + MAX_CLEANUP_INTERVAL_MS + " (far above the longest a check can take)");
        check(unreachableRetryAfterMs >= 1 && unreachableRetryAfterMs <= MAX_UNREACHABLE_RETRY_AFTER_MS,
            UNREACHABLE_RETRY_AFTER_MS, unreachableRetryAfterMs, UNREACHABLE_RETRY_EXPECTED);
        check(capacity >= 1 && capacity <= MAX_CAPACITY, CAPACITY, capacity, CAPACITY_EXPECTED);
    }

    /** @throws IllegalArgumentException {@code key=value: expected ...}, the words of every range error. */
    static void check(final boolean ok, final String key, final long value, final String expected)
    {
        if (!ok)
        {
            throw new IllegalArgumentException(key + "=" + value + ": expected " + expected);
        }
    }
}
