package dev.floodgate;

import dev.floodgate.door.HeldQuota;

/** {@link Quota} over a {@link Doorkeeper}: its checks go through the handle's own slots ({@link HeldQuota}). */
final class FloodgateQuota implements Quota
{
    private final Doorkeeper keeper;
    private final HeldQuota held;

    FloodgateQuota(final Doorkeeper keeper, final HeldQuota held)
    {
        this.keeper = keeper;
        this.held = held;
    }

    @Override
    public long checkLimit()
    {
        return checkLimit(1);
    }

    @Override
    public long checkLimit(final long cost)
    {
        Charge.requireCost(cost);
        return keeper.checkBucket(held, cost);
    }

    @Override
    public long checkLimitInCaller()
    {
        return checkLimitInCaller(1);
    }

    @Override
    public long checkLimitInCaller(final long cost)
    {
        Charge.requireCost(cost);
        return keeper.checkWindow(held, cost);
    }

    @Override
    public Probe probe()
    {
        return keeper.probeBucket(held.identifier(), held.action());
    }

    @Override
    public Probe probeInCaller()
    {
        return keeper.probeWindow(held.identifier(), held.action());
    }

    @Override
    public String toString()
    {
        return "Quota{" + held.action().configPrefix() + " " + held.identifier() + "}";
    }
}
