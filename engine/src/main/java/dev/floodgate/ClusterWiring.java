package dev.floodgate;

import dev.floodgate.door.ClusterGate;
import dev.floodgate.door.LeaseSource;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.KeyHasher;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.SlotLocks;

import java.lang.reflect.InvocationTargetException;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a configuration's cluster quota (issue 12) into the doors' {@link ClusterGate}: the Redis client is
 * loaded by name, here and only when {@code cluster_redis_uri} is set, so an engine without a cluster quota
 * needs neither Lettuce nor Redis. Also says when a configuration sets a cluster limit without that URI, which
 * leaves it without effect. Stateless.
 */
final class ClusterWiring
{
    private static final String SOURCE = "dev.floodgate.cluster.RedisLeaseSource";

    private ClusterWiring()
    {
    }

    /**
     * @param owner  the engine's owner, which keeps the file mapped.
     * @param table  the table: the node's name comes from its header, the fetchers' liveness from its locks.
     * @return the gate, its client connecting in the background.
     * @throws IllegalStateException when Lettuce is not on the class path.
     */
    static ClusterGate gate(final Object owner, final FloodgateConfig config, final QuotaTable table)
    {
        final int n = Action.values().length;
        final long[] limits = new long[n];
        final long[] windows = new long[n];
        final long[] leases = new long[n];
        final boolean[] local = new boolean[n];
        for (final Action action : Action.values())
        {
            final int a = action.ordinal();
            if (config.hasClusterQuota(action))
            {
                limits[a] = config.clusterLimit(action).limit();
                windows[a] = config.clusterLimit(action).windowMs();
                leases[a] = config.clusterLease(action);
            }
            local[a] = config.clusterFallsBackLocal(action);
        }
        final SlotLocks locks = table.locks();
        final LeaseSource source = source(config.clusterRedisUri(), limits, windows, nodeName(table.header()));
        if (!source.connected())
        {
            warnNotConnected(config);
        }
        return new ClusterGate(source, owner, config.ticker(), limits, windows, leases, local,
            config.clusterRetryAfterMs(), SlotLocks.holderOf(table.owner()), locks::isHolderAlive);
    }

    /**
     * The source waited for its first connection and gave up (a connection that failed outright is logged by the
     * client, one that is merely slow or unanswered is not): without this line a broker would run every cluster
     * check on its fallback and nothing would say so.
     */
    private static void warnNotConnected(final FloodgateConfig config)
    {
        final List<String> answers = new ArrayList<>();
        for (final Action action : Action.values())
        {
            if (config.hasClusterQuota(action))
            {
                answers.add(ClusterKeys.fallbackKey(action) + "=" +
                    (config.clusterFallsBackLocal(action) ? "local" : "refuse"));
            }
        }
        System.getLogger("dev.floodgate").log(System.Logger.Level.WARNING, "{0}: Redis at {1} not connected when " +
            "the open''s wait for it ended; opening anyway, and until it connects each cluster check answers its " +
            "fallback ({2}; local: admitted on the node''s quota alone, refuse: refused with a retry-after of {3} ms, " +
            "{4})", config.file(), FloodgateKeys.redactedRedisUri(config.clusterRedisUri()), String.join(", ", answers),
            String.valueOf(config.clusterRetryAfterMs()), ClusterKeys.RETRY_AFTER_MS);
    }

    /**
     * @return the name this node leases under, {@code fg-<boot id>-<file id>}: one per table file, so every JVM
     * mapping the file shares it and a file made again (whose sequences restart) takes a new one. The file id is 64
     * bits of a keyed hash under the file's random secret (Redis learns nothing of the secret). It was the file's
     * creation time in ms until a review found two files made on one host in the same millisecond (two services, or
     * two pods sharing the kernel's boot id) named as one node: they shared the script's sequence record per bucket,
     * and a request of one answered as a replay of the other's handed one grant to both.
     */
    static String nodeName(final FileHeader header)
    {
        final byte[] id = new KeyHasher(header.secret0(), header.secret1()).key(NODE_LABEL, Action.AUTH, (byte)0);
        final StringBuilder name = new StringBuilder("fg-").append(header.bootId()).append('-');
        for (int i = 0; i < Long.BYTES; i++)
        {
            name.append(Character.forDigit(id[i] >>> 4 & 0xF, 16)).append(Character.forDigit(id[i] & 0xF, 16));
        }
        return name.toString();
    }

    private static final String NODE_LABEL = "floodgate.cluster.node";

    /**
     * A blank {@code cluster_redis_uri} means no cluster quota at all, whatever the per-action keys say: an operator
     * who set {@code publish_cluster_rate_limit} and forgot the URI would otherwise run on the node's quota alone
     * and never be told. Logs one warning naming the keys that are set and have no effect; nothing when none is.
     */
    static void warnOfLimitsWithoutUri(final FloodgateConfig config)
    {
        final List<String> keys = limitsWithoutUri(config);
        if (!keys.isEmpty())
        {
            System.getLogger("dev.floodgate").log(System.Logger.Level.WARNING, "{0}: {1} set, but {2} is blank, " +
                "so no cluster quota is in force: the node''s quota alone applies; set {2} to lease from Redis, or " +
                "unset {1}", config.file(), String.join(", ", keys), ClusterKeys.REDIS_URI);
        }
    }

    /** @return the cluster limit keys of the actions whose cluster quota is on but for want of a URI. */
    static List<String> limitsWithoutUri(final FloodgateConfig config)
    {
        final List<String> keys = new ArrayList<>();
        if (config.clusterRedisUri().isEmpty())
        {
            for (final Action action : Action.values())
            {
                final FloodgateConfig.Limit limit = config.clusterLimit(action);
                if (ClusterKeys.isOn(limit.limit(), limit.windowMs()))
                {
                    keys.add(ClusterKeys.limitKey(action));
                }
            }
        }
        return keys;
    }

    private static LeaseSource source(final String uri, final long[] limits, final long[] windows, final String node)
    {
        try
        {
            return Class.forName(SOURCE).asSubclass(LeaseSource.class)
                .getConstructor(String.class, long[].class, long[].class, String.class)
                .newInstance(uri, limits, windows, node);
        }
        catch (final ClassNotFoundException | LinkageError ex)
        {
            throw missingLettuce(ex);
        }
        catch (final InvocationTargetException ex)
        {
            if (ex.getCause() instanceof LinkageError)
            {
                throw missingLettuce(ex.getCause());
            }
            throw ex.getCause() instanceof RuntimeException runtime ? runtime :
                new IllegalStateException(ex.getCause());
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException("cannot make " + SOURCE, ex);
        }
    }

    private static IllegalStateException missingLettuce(final Throwable cause)
    {
        return new IllegalStateException(ClusterKeys.REDIS_URI + " is set, but the Redis client is not on the " +
            "class path: add io.lettuce:lettuce-core (7.x)", cause);
    }
}
