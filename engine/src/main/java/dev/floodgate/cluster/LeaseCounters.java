package dev.floodgate.cluster;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client's running totals, for stats. Each call is counted once, when its {@link Lease} is decided and before
 * the caller sees it; the totals are exact once the calls have returned and move while they run. Thread-safe.
 *
 * <p>Tokens leased count each lease request (key, node, seq) once, the first time its grant reaches a caller of
 * this client: an {@link Lease.Outcome#APPLIED} answer, or a {@link Lease.Outcome#REPLAYED} one to a request whose
 * earlier call from this client ended {@link Lease.Outcome#UNAVAILABLE} (Redis may have applied it after the bound:
 * the retry's replay is then the first this client hears of the grant). A replay of an answer this client already
 * got is not counted again. Counted until a review found it: APPLIED answers only, so a grant recovered by a retry
 * was never counted. The unanswered requests are remembered until their retry is answered, at most
 * {@link #UNANSWERED_KEPT} of them (beyond that a recovered grant goes uncounted: the count can fall short, never
 * count one twice). A replay of a request another client sent (another JVM of the node retrying it) is not this
 * client's to count.
 *
 * <p>A lease its node gave up unanswered stays among the unanswered for good: a call that ended
 * {@link Lease.Outcome#UNAVAILABLE} after Redis applied it, whose seq the node's idle give-back (or last close) then
 * refunds under, before any retry (the script takes that as giving the lease up and puts its grant back in the bucket
 * with the refund). No answer to that request comes any more: the node moved its seq past it before refunding, and a
 * lease under it would now be {@link Lease.Outcome#STALE} (which would free it). No figure is wrong for it: the grant
 * never reached a caller and never will, so it is rightly not in {@link #tokensLeased}; the refund is answered with
 * its own amount only, which is what {@link #tokensRefunded} adds, so tokens leased less refunded stay what the node
 * spent or holds (the engine's figures too, whose leased tokens are counted at the commit:
 * {@code ClusterUnansweredLeaseGiveBackTest}); and {@link #unavailable} counted the call once, as it ended. It costs
 * one of the {@link #UNANSWERED_KEPT} slots for this client's life, as does any unanswered request whose retry never
 * comes (an entry reclaimed before a check retried it): once every slot is taken, a grant a later replay recovers is
 * left out of {@link #tokensLeased} (short, never counted twice), a figure the engine does not report.
 */
public final class LeaseCounters
{
    /** The most unanswered lease requests remembered for their retry's replay. */
    static final int UNANSWERED_KEPT = 4_096;

    private final Set<Request> unanswered = ConcurrentHashMap.newKeySet();
    private final AtomicLong roundTrips = new AtomicLong();
    private final AtomicLong unavailable = new AtomicLong();
    private final AtomicLong scriptReloads = new AtomicLong();
    private final AtomicLong tokensLeased = new AtomicLong();
    private final AtomicLong tokensRefunded = new AtomicLong();

    void roundTrip()
    {
        roundTrips.incrementAndGet();
    }

    void scriptReload()
    {
        scriptReloads.incrementAndGet();
    }

    void lease(final LeaseKey key, final String node, final long seq, final Lease lease)
    {
        final Request request = new Request(key, node, seq);
        switch (lease.outcome())
        {
            case UNAVAILABLE ->
            {
                unavailable.incrementAndGet();
                if (unanswered.size() < UNANSWERED_KEPT)
                {
                    unanswered.add(request);
                }
            }
            case APPLIED ->
            {
                unanswered.remove(request);
                tokensLeased.addAndGet(lease.tokens());
            }
            case REPLAYED ->
            {
                if (unanswered.remove(request))
                {
                    tokensLeased.addAndGet(lease.tokens()); // the first this client hears of that grant
                }
            }
            default -> unanswered.remove(request);
        }
    }

    void refund(final Lease refund)
    {
        if (refund.outcome() == Lease.Outcome.UNAVAILABLE)
        {
            unavailable.incrementAndGet();
        }
        else if (refund.outcome() == Lease.Outcome.APPLIED)
        {
            tokensRefunded.addAndGet(refund.tokens());
        }
    }

    /**
     * @return commands handed to the connection (an EVALSHA and its EVAL fallback are two), including those it
     * refused at once while Redis was down.
     */
    public long roundTrips()
    {
        return roundTrips.get();
    }

    /** @return calls that ended {@link Lease.Outcome#UNAVAILABLE}. */
    public long unavailable()
    {
        return unavailable.get();
    }

    /** @return times the server did not know the script (after a restart or SCRIPT FLUSH) and it was sent whole. */
    public long scriptReloads()
    {
        return scriptReloads.get();
    }

    /**
     * @return tokens granted to this client's lease requests, each request once: applied now, or recovered by a
     * replay after this client's earlier call of it got no answer (see the class comment).
     */
    public long tokensLeased()
    {
        return tokensLeased.get();
    }

    /** @return tokens given back by refunds applied now. */
    public long tokensRefunded()
    {
        return tokensRefunded.get();
    }

    /** A lease request: its replay answers the same grant, whatever amount the retry asked. */
    private record Request(LeaseKey key, String node, long seq)
    {
    }
}
