package dev.floodgate;

/**
 * What a quota would answer now, without consuming anything ({@link Floodgate#probe},
 * {@link Floodgate#probeInCaller}). A snapshot: other threads and JVMs may take tokens the moment after.
 *
 * @param limit        the limit in force (0: the action is switched off); the cluster limit when the node's
 *                     policy switched the action off but this JVM's configuration gives it a cluster quota, which
 *                     stays in force.
 * @param remaining    tokens checks could take now ({@link Long#MAX_VALUE} when the action is off); an
 *                     identifier the table has never seen has the whole limit.
 * @param retryAfterMs what a check of cost 1 would return now: 0 when it would be admitted, else the
 *                     milliseconds until it could be.
 * @param resetMs      the bucket: milliseconds until it is full again; the window: until the current window
 *                     ends; 0 when full or off.
 */
public record Probe(long limit, long remaining, long retryAfterMs, long resetMs)
{
}
