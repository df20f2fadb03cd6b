package dev.floodgate;

import dev.floodgate.door.Doors;
import dev.floodgate.door.HeldQuota;

import java.lang.ref.Reference;

/** {@link Quota} over a {@link Floodgate}: its checks go through the handle's own slots ({@link HeldQuota}). */
final class FloodgateQuota implements Quota
{
    private final Floodgate gate;
    private final HeldQuota held;

    FloodgateQuota(final Floodgate gate, final HeldQuota held)
    {
        this.gate = gate;
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
        try
        {
            final Doors doors = gate.openDoors(); // closed: throws, switched off or not
            return gate.isEnabled() ? doors.checkBucket(held, cost) : Floodgate.ADMITTED;
        }
        finally
        {
            Reference.reachabilityFence(gate); // keeps the file mapped until this check is done: see Floodgate
        }
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
        try
        {
            final Doors doors = gate.openDoors();
            return gate.isEnabled() ? doors.checkWindow(held, cost) : Floodgate.ADMITTED;
        }
        finally
        {
            Reference.reachabilityFence(gate);
        }
    }

    @Override
    public Probe probe()
    {
        return gate.probe(held.identifier(), held.action());
    }

    @Override
    public Probe probeInCaller()
    {
        return gate.probeInCaller(held.identifier(), held.action());
    }

    @Override
    public String toString()
    {
        return "Quota{" + held.action().configPrefix() + " " + held.identifier() + "}";
    }
}
