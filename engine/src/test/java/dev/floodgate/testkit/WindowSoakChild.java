package dev.floodgate.testkit;

import dev.floodgate.Charge;
import dev.floodgate.Floodgate;
import dev.floodgate.Quota;

import java.util.List;
import java.util.Random;

/**
 * A checker JVM of {@link WindowSoak} ({@link SoakChild}): its threads hammer the soak's window quotas
 * ({@link WindowSoak#SERIES}) with {@code checkLimitInCaller} by name and through {@link Quota} handles held across
 * every publish, single and weighted, and two-quota window {@code charge}s. Each call's start stamp is the window
 * door's own coarse clock ({@link EngineTap#windowClock}), read just before the call: the check reads it no earlier,
 * so its window is at or after the stamp's ({@link WindowBound}).
 *
 * <pre>args: file admissionsFile inflightFile stopFile seed threads</pre>
 */
public final class WindowSoakChild implements SoakChild.Door
{
    private final Floodgate gate;
    private final EngineTap tap;
    private final Quota[] quotas = new Quota[WindowSoak.SERIES.length];

    private WindowSoakChild(final Floodgate gate)
    {
        this.gate = gate;
        try
        {
            this.tap = new EngineTap(gate);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException(ex);
        }
        for (int s = 0; s < quotas.length; s++)
        {
            quotas[s] = gate.quota(WindowSoak.SERIES[s], WindowSoak.ACTIONS[s]);
        }
    }

    public static void main(final String[] args) throws Exception
    {
        SoakChild.run(args, WindowSoak.ACTIONS, WindowSoakChild::new, false);
    }

    @Override
    public long start()
    {
        return tap.windowClock();
    }

    @Override
    public int partner(final Random random)
    {
        return random.nextInt(WindowSoak.SERIES.length);
    }

    @Override
    public long check(final Random random, final int a, final long costA, final int b, final long costB)
    {
        if (b >= 0)
        {
            return gate.charge(List.of(Charge.window(WindowSoak.SERIES[a], WindowSoak.ACTIONS[a], costA),
                Charge.window(WindowSoak.SERIES[b], WindowSoak.ACTIONS[b], costB)));
        }
        final boolean byHandle = random.nextBoolean();
        if (costA == 1 && random.nextBoolean())
        {
            return byHandle ? quotas[a].checkLimitInCaller() :
                gate.checkLimitInCaller(WindowSoak.SERIES[a], WindowSoak.ACTIONS[a]);
        }
        return byHandle ? quotas[a].checkLimitInCaller(costA) :
            gate.checkLimitInCaller(WindowSoak.SERIES[a], WindowSoak.ACTIONS[a], costA);
    }
}
