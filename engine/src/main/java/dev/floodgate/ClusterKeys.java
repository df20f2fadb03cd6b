package dev.floodgate;

import dev.floodgate.cluster.ClusterLimit;
import dev.floodgate.cluster.RedisUriText;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import static dev.floodgate.ConfigKeys.check;

/**
 * The cluster quota's configuration keys (issue 12) as an operator writes them, and what each value must be.
 * Kept apart from {@link ConfigKeys} because they are read once at start and are not policy keys: a published
 * policy changes the node's doors, never the cluster's quota, which lives in Redis.
 *
 * <pre>
 * key                              default         meaning
 * cluster_redis_uri                (blank)         redis://, rediss:// or redis-socket:// URI; blank: none at all
 * &lt;action&gt;_cluster_rate_limit      0               tokens per window across the cluster; 0: none for the action
 * &lt;action&gt;_cluster_rate_window_ms  action's window the cluster window; 0: none for the action
 * &lt;action&gt;_cluster_lease           0               tokens a node leases at a time; 0: max(1, limit / 10)
 * &lt;action&gt;_cluster_fallback        refuse / local  Redis unavailable: refuse (AUTH, DASHBOARD_AUTH) or local
 * cluster_retry_after_ms           100             retry-after of a check refused for want of a lease
 * </pre>
 *
 * Stateless.
 */
final class ClusterKeys
{
    static final String REDIS_URI = "cluster_redis_uri";
    static final String RETRY_AFTER_MS = "cluster_retry_after_ms";

    static final long DEFAULT_RETRY_AFTER_MS = 100L;
    /** A default lease is a tenth of the cluster limit: ten round trips a window at most per busy node. */
    static final long DEFAULT_LEASE_DIVISOR = 10L;

    static final String URI_EXPECTED = "a redis://, rediss:// or redis-socket:// URI, or blank for no cluster quota";
    static final String RETRY_EXPECTED = "a whole number of milliseconds from 1 to " +
        ConfigKeys.MAX_UNREACHABLE_RETRY_AFTER_MS;
    static final String FALLBACK_EXPECTED = "refuse or local";

    // What a per-action cluster key adds to the action's prefix.
    private static final String LIMIT = "_cluster_rate_limit";
    private static final String WINDOW = "_cluster_rate_window_ms";
    private static final String LEASE = "_cluster_lease";
    private static final String FALLBACK = "_cluster_fallback";

    private ClusterKeys()
    {
    }

    /** @return the cluster keys, in documentation order. */
    static String[] keys()
    {
        final List<String> keys = new ArrayList<>();
        keys.add(REDIS_URI);
        ConfigKeys.addPerAction(keys, LIMIT, WINDOW, LEASE, FALLBACK);
        keys.add(RETRY_AFTER_MS);
        return keys.toArray(new String[0]);
    }

    static String limitKey(final Action action)
    {
        return action.configPrefix() + LIMIT;
    }

    static String windowKey(final Action action)
    {
        return action.configPrefix() + WINDOW;
    }

    static String leaseKey(final Action action)
    {
        return action.configPrefix() + LEASE;
    }

    static String fallbackKey(final Action action)
    {
        return action.configPrefix() + FALLBACK;
    }

    /** @return the action whose per-action cluster key {@code key} is, or null when it is none. */
    static Action actionOf(final String key)
    {
        return ConfigKeys.actionNamedBy(key, LIMIT, WINDOW, LEASE, FALLBACK);
    }

    /** @return true (local) when Redis unavailable should admit on the node quota alone: not for login controls. */
    static boolean defaultFallbackLocal(final Action action)
    {
        return !action.isSecurityControl();
    }

    /** @return whether {@code limit} per {@code windowMs} switches the action's cluster quota on. */
    static boolean isOn(final long limit, final long windowMs)
    {
        return limit != 0 && windowMs != 0;
    }

    /** @return the tokens one lease asks for: the configured size, or a tenth of the limit when it is 0. */
    static long leaseSize(final long limit, final long configuredLease)
    {
        return configuredLease != 0 ? configuredLease : Math.max(1, limit / DEFAULT_LEASE_DIVISOR);
    }

    static String limitExpected()
    {
        return "a whole number from 0 to " + ConfigKeys.MAX_LIMIT + " (0: no cluster quota) whose product with " +
            "the cluster window is at most 2^53";
    }

    static String windowExpected()
    {
        return "a whole number of milliseconds from 0 to " + ConfigKeys.MAX_WINDOW_MS + " (0: no cluster quota)";
    }

    /**
     * @throws IllegalArgumentException naming the key, the value and what was expected: a scheme Lettuce does not
     * speak or a URI that does not parse. Checked without Lettuce, which need not be on the class path.
     */
    static void validateUri(final String uri)
    {
        if (uri.isEmpty())
        {
            return;
        }
        final URI parsed;
        try
        {
            parsed = new URI(uri);
        }
        catch (final URISyntaxException ex)
        {
            // its reason only, never the exception: its message (and a logged cause) holds the URI, password and all
            throw new IllegalArgumentException(REDIS_URI + "='" + redacted(uri) + "': expected " + URI_EXPECTED +
                " (" + ex.getReason() + " at index " + ex.getIndex() + ")");
        }
        // in lower case, as Lettuce compares it (found by review: REDIS:// passed here and failed the open)
        final String scheme = parsed.getScheme() == null ? "" : parsed.getScheme();
        if (!scheme.equals("redis") && !scheme.equals("rediss") && !scheme.equals("redis-socket"))
        {
            throw new IllegalArgumentException(REDIS_URI + "='" + redacted(uri) + "': expected " + URI_EXPECTED +
                (scheme.toLowerCase(Locale.ROOT).startsWith("redis") ? " (the scheme in lower case)" : ""));
        }
        if (parsed.getPort() == 0 || parsed.getPort() > 65_535)
        {
            throw new IllegalArgumentException(REDIS_URI + "='" + redacted(uri) + "': expected " + URI_EXPECTED +
                ", with a port from 1 to 65535");
        }
        // what Lettuce would misread (found by review): a port that is not a number (taken as part of the host,
        // every lease then unavailable, silently) or a database that is not a number (a bare error at open)
        final String path = parsed.getPath() == null ? "" : parsed.getPath();
        if (!scheme.equals("redis-socket") && (parsed.getHost() == null || !path.matches("(/[0-9]{0,9})?")))
        {
            throw new IllegalArgumentException(REDIS_URI + "='" + redacted(uri) + "': expected " + URI_EXPECTED +
                ", as redis://host[:port][/database] with a numeric port and database");
        }
    }

    /**
     * @param nodeLimit the action's node limit: a cluster quota is spent through the node's entry, so the node's
     *                  quota must be on.
     * @throws IllegalArgumentException naming the key, the value and what was expected.
     */
    static void validate(final Action action, final long limit, final long windowMs, final long lease,
        final long nodeLimit)
    {
        check(limit >= 0 && limit <= ConfigKeys.MAX_LIMIT, limitKey(action), limit, limitExpected());
        check(windowMs >= 0 && windowMs <= ConfigKeys.MAX_WINDOW_MS, windowKey(action), windowMs, windowExpected());
        check(lease >= 0 && lease <= ConfigKeys.MAX_LIMIT, leaseKey(action), lease, "a whole number of tokens " +
            "from 0 (a tenth of the cluster limit) to " + ConfigKeys.MAX_LIMIT);
        if (!isOn(limit, windowMs))
        {
            return;
        }
        if (!ClusterLimit.fits(limit, windowMs))
        {
            throw new IllegalArgumentException(limitKey(action) + "=" + limit + " with " + windowKey(action) + "=" +
                windowMs + ": expected limit * window_ms at most 2^53 (" + ClusterLimit.MAX_CREDITS + "), the " +
                "largest whole number Redis's Lua counts exactly");
        }
        check(lease >= 0 && lease <= limit, leaseKey(action), lease, "a whole number of tokens from 0 (a tenth of " +
            "the cluster limit) to the cluster limit " + limit);
        check(nodeLimit != 0, limitKey(action), limit, "0 while " + ConfigKeys.limitKey(action) + " is 0 (a " +
            "cluster quota is spent through the node's quota, which must be on)");
    }

    static void validateRetryAfter(final long retryAfterMs)
    {
        check(retryAfterMs >= 1 && retryAfterMs <= ConfigKeys.MAX_UNREACHABLE_RETRY_AFTER_MS, RETRY_AFTER_MS,
            retryAfterMs, RETRY_EXPECTED);
    }

    /** @return {@code uri} without its password, for errors and {@code toString}. */
    static String redacted(final String uri)
    {
        return RedisUriText.redacted(uri);
    }
}
