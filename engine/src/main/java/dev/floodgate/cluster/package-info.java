/**
 * Internal: the cluster-wide quota's lease service (issue 12). A Lua script on one Redis keeps a token bucket per
 * (identifier, action); each node leases batches of tokens from it ({@link dev.floodgate.cluster.RedisLeases}) and
 * gives back what it did not spend. Nothing outside the engine module may use these classes.
 *
 * <p>Lettuce is an optional dependency of the engine, needed only by a node with {@code cluster_redis_uri} set: only
 * this package names Lettuce types, and only {@code RedisLeases}, {@code RedisConnector} and {@code LettuceClient}
 * load them, so the rest of the engine (and {@link dev.floodgate.cluster.ClusterLimit}, which the configuration
 * validates with) runs without Lettuce on the class path.
 */
package dev.floodgate.cluster;
