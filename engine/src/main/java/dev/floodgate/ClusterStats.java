package dev.floodgate;

import java.util.Map;

/**
 * The figures of the cluster quota (issue 12): the node's, shared by every JVM mapping the file and read from it
 * ({@link Node}, in {@link Stats#cluster()} and {@code floodgate stats}), and this process's, from its heap
 * ({@link Process}, {@link Floodgate#processCluster()}). A check the cluster refused, or refused for want of a
 * lease, is also a refusal of its action in {@link Stats.Checks}: these say who refused it.
 */
public final class ClusterStats
{
    private ClusterStats()
    {
    }

    /** Whether this process's connection to the cluster's Redis is up. */
    public enum Connection
    {
        /** This instance has no cluster quota configured. */
        NONE,
        /** Connected now (a lease may still fail the next moment). */
        UP,
        /** Not connected now: checks that need a lease answer their action's fallback. */
        DOWN
    }

    /**
     * The node's cluster figures: the lease entries from one pass over the table (not a snapshot across segments),
     * the counters added by every JVM of the node (each JVM adds its counts every 100 ms and on close; a killed JVM
     * loses its last 100 ms), read with volatile loads. Over every action: the file keeps no split per action.
     *
     * @param leasesHeld       live lease entries: (identifier, action) pairs whose cluster bucket the node leases.
     * @param tokensUnused     tokens leased and not yet spent, over every lease entry (the under-admission bound now).
     * @param roundTrips       commands sent to Redis by every JVM of the node.
     * @param tokensLeased     tokens the cluster granted that reached the node's balances: each grant once, when a
     *                         JVM of the node commits it, whether Redis answered the lease at once or replayed
     *                         the grant to a retry (the first answer lost to the bound); a grant whose sequence had
     *                         moved on before its commit (another JVM committed it, or a give-back took the
     *                         number) reached no balance and is not counted. So tokens leased = spent + unused +
     *                         refunded, less what a JVM killed mid-commit or mid-give-back lost, and less the
     *                         tokens of refunds that got no answer within their bound (counted in {@code
     *                         unavailable}: Redis may still have applied them, giving them back to the cluster).
     * @param tokensRefunded   tokens given back by refunds answered as applied.
     * @param unavailable      lease or refund calls that got no answer within their bound.
     * @param refused          checks refused by the cluster (the node's lease short and its bucket drained).
     * @param fallbacksRefused checks refused for want of a lease (Redis unavailable, fallback {@code refuse}).
     * @param fallbacksLocal   checks admitted on the node's quota alone for want of a lease (fallback {@code local}).
     */
    public record Node(long leasesHeld, long tokensUnused, long roundTrips, long tokensLeased, long tokensRefunded,
        long unavailable, long refused, long fallbacksRefused, long fallbacksLocal)
    {
        /** No lease and nothing counted. */
        public static final Node NONE = new Node(0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    /**
     * One action's checks as the cluster answered them in this process.
     *
     * @param refused          refused by the cluster.
     * @param fallbacksRefused refused for want of a lease.
     * @param fallbacksLocal   admitted on the node's quota alone for want of a lease.
     */
    public record Checks(long refused, long fallbacksRefused, long fallbacksLocal)
    {
    }

    /**
     * This process's cluster figures, from its heap, since this instance opened.
     *
     * @param connection     its connection to Redis now.
     * @param roundTrips     commands its client sent to Redis.
     * @param tokensLeased   tokens its commits added to the node's balances (as {@link Node#tokensLeased()}
     *                       counts them: each grant once, a replayed one included).
     * @param tokensRefunded tokens given back by its refunds applied.
     * @param unavailable    its calls that got no answer within their bound.
     * @param checks         per action, its checks the cluster refused or answered by the fallback.
     */
    public record Process(Connection connection, long roundTrips, long tokensLeased, long tokensRefunded,
        long unavailable, Map<Action, Checks> checks)
    {
    }
}
