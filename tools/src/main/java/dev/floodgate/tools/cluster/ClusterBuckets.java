package dev.floodgate.tools.cluster;

import dev.floodgate.Action;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisException;
import io.lettuce.core.ScanArgs;

import java.io.PrintStream;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * A load run's cluster buckets in Redis: identifiers of its own, and their removal afterwards. Redis keeps a bucket
 * for its cluster window, so fixed identifiers made a second run start from the buckets the first had drained
 * (judged WRONG), and spent the quota of whoever bore them on a shared Redis (found by review).
 */
public final class ClusterBuckets
{
    private ClusterBuckets()
    {
    }

    /** @return a prefix no other run's identifiers have: {@code bench-<8 hex digits>-key-}. */
    public static String runPrefix()
    {
        return "bench-" + HexFormat.of().toHexDigits(new SecureRandom().nextInt()) + "-key-";
    }

    /**
     * Deletes the buckets of the identifiers starting with {@code prefix} ({@code floodgate:<action>:<identifier>},
     * the engine's key for a short identifier); says so on {@code err} when Redis cannot be reached.
     */
    public static void delete(final ClusterQuota quota, final Action action, final String prefix,
        final PrintStream err)
    {
        final String pattern = "floodgate:" + action.configPrefix() + ":" + prefix + "*";
        try (ServerConnection server = ServerConnection.open(quota.uri()))
        {
            final ScanArgs match = ScanArgs.Builder.matches(pattern).limit(1000);
            KeyScanCursor<String> cursor = server.commands().scan(match);
            while (true)
            {
                if (!cursor.getKeys().isEmpty())
                {
                    server.commands().unlink(cursor.getKeys().toArray(new String[0]));
                }
                if (cursor.isFinished())
                {
                    return;
                }
                cursor = server.commands().scan(cursor, match);
            }
        }
        catch (final RedisException ex)
        {
            err.println("floodgate bench: could not delete the run's cluster buckets (" + pattern + ") from " +
                quota.shownUri() + ": " + ex.getMessage());
        }
    }
}
