package dev.floodgate.testkit;

import dev.floodgate.Charge;
import dev.floodgate.Floodgate;

import java.util.List;
import java.util.Random;

/**
 * A checker JVM of {@link BucketSoak} ({@link SoakChild}): its threads hammer the soak's bucket quotas
 * ({@link BucketSoak#SERIES}) with {@code checkLimit}, weighted {@code checkLimit} and two-quota bucket
 * {@code charge}s (the second quota a PUBLISH one), each call stamped with {@code System.nanoTime}, the clock the
 * bucket reads.
 *
 * <pre>args: file admissionsFile inflightFile stopFile seed threads</pre>
 */
public final class BucketSoakChild implements SoakChild.Door
{
    private final Floodgate gate;

    private BucketSoakChild(final Floodgate gate)
    {
        this.gate = gate;
    }

    public static void main(final String[] args) throws Exception
    {
        SoakChild.run(args, BucketSoak.ACTIONS, BucketSoakChild::new, true);
    }

    @Override
    public long start()
    {
        return System.nanoTime();
    }

    @Override
    public int partner(final Random random)
    {
        return 2 + random.nextInt(2);
    }

    @Override
    public long check(final Random random, final int a, final long costA, final int b, final long costB)
    {
        return b >= 0 ? gate.charge(List.of(charge(a, costA), charge(b, costB))) :
            costA == 1 && random.nextBoolean() ? gate.checkLimit(BucketSoak.SERIES[a], BucketSoak.ACTIONS[a]) :
                gate.checkLimit(BucketSoak.SERIES[a], BucketSoak.ACTIONS[a], costA);
    }

    private static Charge charge(final int series, final long cost)
    {
        return Charge.bucket(BucketSoak.SERIES[series], BucketSoak.ACTIONS[series], cost);
    }
}
