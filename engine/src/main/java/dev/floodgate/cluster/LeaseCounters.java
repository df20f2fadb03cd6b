package dev.floodgate.cluster;

import java.util.concurrent.atomic.AtomicLong;

/**
 * One client's running totals, for stats. Each call is counted once, when its {@link Lease} is decided and before
 * the caller sees it; the totals are exact once the calls have returned and move while they run. Thread-safe.
 */
public final class LeaseCounters
{
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

    void lease(final Lease lease)
    {
        if (lease.outcome() == Lease.Outcome.UNAVAILABLE)
        {
            unavailable.incrementAndGet();
        }
        else if (lease.outcome() == Lease.Outcome.APPLIED)
        {
            tokensLeased.addAndGet(lease.tokens());
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

    /** @return tokens granted by leases applied now (replays are not counted again). */
    public long tokensLeased()
    {
        return tokensLeased.get();
    }

    /** @return tokens given back by refunds applied now. */
    public long tokensRefunded()
    {
        return tokensRefunded.get();
    }
}
