package dev.floodgate.door;

import dev.floodgate.Action;

import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Where a node leases its cluster quota's tokens: the seam between the doors and the cluster's client, in JDK
 * types only, so the doors load without Lettuce and a node without a cluster quota never loads the client
 * ({@code dev.floodgate.cluster.RedisLeaseSource} is made reflectively, only when {@code cluster_redis_uri} is
 * set). Implementations are thread-safe.
 */
public interface LeaseSource extends AutoCloseable
{
    /** {@link Grant#status()}: the server granted {@link Grant#tokens()} (0 when its bucket was empty). */
    int GRANTED = 0;
    /** {@link Grant#status()}: the server saw a later sequence of this node for the bucket; nothing taken. */
    int STALE = 1;
    /** {@link Grant#status()}: no answer within the bound; maybe taken, a retry with the same sequence finds out. */
    int UNAVAILABLE = 2;

    /**
     * A lease's answer.
     *
     * @param status {@link #GRANTED}, {@link #STALE} or {@link #UNAVAILABLE}.
     * @param tokens granted, 0 unless {@link #GRANTED}.
     * @param waitMs after a grant: ms until the cluster bucket holds a whole token again, 0 while it does.
     * @param asked  after a grant: the amount its request asked, which differs from this lease's {@code want} when
     *               the grant is the one the sequence got first, replayed to a retry that asked another amount; 0
     *               for {@code want}.
     */
    record Grant(int status, long tokens, long waitMs, long asked)
    {
        /** An answer to the request as sent ({@code asked} is its {@code want}). */
        public Grant(final int status, final long tokens, final long waitMs)
        {
            this(status, tokens, waitMs, 0);
        }
    }

    /**
     * Leases tokens of the cluster bucket of (action, identifier).
     *
     * @param sequence the node's sequence number for the bucket: the same one again only to retry; a retry is
     *                 answered with the sequence's first grant, whatever it asks ({@link Grant#asked()}).
     * @param want     tokens wanted, at least 1.
     * @return a stage that completes normally within the source's bound ({@link #timeoutMs()}), never
     * exceptionally, on a thread that must not block.
     */
    CompletionStage<Grant> lease(Action action, String identifier, long sequence, long want);

    /**
     * A source's running totals since it was opened, each exact once its calls have returned.
     *
     * Tokens leased are not the source's to count: the doors count what their commits added to the node's balance
     * ({@link ClusterCounters#LEASED}), which no answer alone tells (a grant may be replayed to a retry, or reach
     * no balance when its sequence moved on).
     *
     * @param roundTrips     commands sent to the server (a script sent whole after the server lost it is a second).
     * @param tokensRefunded tokens given back by refunds applied.
     * @param unavailable    calls that got no answer within the bound.
     */
    record Totals(long roundTrips, long tokensRefunded, long unavailable)
    {
        /** Nothing counted. */
        public static final Totals NONE = new Totals(0, 0, 0);
    }

    /** @return this source's running totals; none by default. */
    default Totals totals()
    {
        return Totals.NONE;
    }

    /** @return whether the source's connection is up now (a lease may still fail the next moment). */
    default boolean connected()
    {
        return false;
    }

    /**
     * Gives unspent tokens back to the cluster bucket of (action, identifier). Idempotent as a lease is: the same
     * sequence with the same tokens is applied at most once, whatever the retries.
     *
     * @param sequence the node's sequence number for the bucket, which the caller moved its sequence past first:
     *                 used before by the node for it only by a lease whose answer never reached a commit (it timed
     *                 out), which the refund gives up: that lease's grant, if the server applied it, goes back with
     *                 the refund.
     * @param tokens   tokens given back, at least 1.
     * @return a stage that completes normally within the source's bound, never exceptionally: {@link #GRANTED}
     * with {@code tokens} once the server applied it (or replayed it), {@link #STALE} when the server saw a later
     * sequence and changed nothing, {@link #UNAVAILABLE} when it may or may not have been applied.
     */
    CompletionStage<Grant> refund(Action action, String identifier, long sequence, long tokens);

    /** @return the bound of every lease, in milliseconds. */
    long timeoutMs();

    /** Closes the connection; leases in flight end {@link #UNAVAILABLE}. */
    @Override
    void close();
}
