package dev.floodgate;

/**
 * What a quota would answer now, without consuming anything ({@link Floodgate#probe},
 * {@link Floodgate#probeInCaller}). A snapshot: other threads and JVMs may take tokens the moment after.
 *
 * <p><b>An action with a cluster quota.</b> A probe does no network I/O and never waits, where a check that its
 * node's leased balance cannot cover waits up to 50 ms for a lease from Redis; so a probe says what the node knows
 * now, the cluster as the node last heard it:
 * <ul>
 * <li><b>Guaranteed</b>: {@code remaining} is never above the cluster limit (a larger cost is never admitted). While
 * the node's lease is marked drained, while this JVM met Redis unavailable a moment ago or its connection is down and
 * the action's fallback is {@code refuse}, and while a lease or give-back of the node for that identifier is still on
 * the wire and the fallback is {@code refuse}, {@code remaining} is at most what the node holds leased (checks of
 * that cost are admitted without a round trip), and when that cannot cover 1, {@code retryAfterMs} is what the check
 * answers: the drained mark's wait, or {@code cluster_retry_after_ms}, the fallback's refusal of a check whose wait
 * ends without a lease. A lease on the wire is given no wait: the probe never counts tokens only it could bring.</li>
 * <li><b>Not guaranteed</b>: whether a round trip not yet made, or still on the wire, brings tokens. With no lease
 * in flight and nothing known against it, a probe takes the cluster to grant what a check would ask for (no lease
 * yet, or a balance short of the cost): the node's answer stands, capped by the cluster limit, and a check may still
 * be refused when Redis says the bucket is drained, or answer its fallback when Redis does not answer in time. With a
 * lease in flight and the fallback {@code refuse}, a check that waits for it may be admitted beyond what the probe
 * said, when the lease lands within the check's wait. With the fallback {@code local}, a check Redis cannot serve is
 * admitted on the node's quota, so the probe says the node's answer unless the lease is marked drained (and even then
 * while this JVM met Redis unavailable a moment ago: such a check answers the fallback before it looks at the
 * mark).</li>
 * </ul>
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
