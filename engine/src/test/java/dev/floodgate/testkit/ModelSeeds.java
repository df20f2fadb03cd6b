package dev.floodgate.testkit;

import java.util.stream.LongStream;

/**
 * The seeds and the length of a sequential model check ({@code ModelCheckTest}, {@code PolicyRaceTest}): CI runs the
 * test's fixed seeds and one from the clock; a soak asks for more from the command line.
 * <ul>
 * <li>{@code -Dfloodgate.model.seed=N} adds seed N (a failure's, to repeat it);</li>
 * <li>{@code -Dfloodgate.model.seeds=K} adds K consecutive seeds, from N when given, else from the clock;</li>
 * <li>{@code -Dfloodgate.model.steps=S} runs S steps per seed instead of the test's own count.</li>
 * </ul>
 */
public final class ModelSeeds
{
    private ModelSeeds()
    {
    }

    /**
     * @param fixed the test's own seeds (each a past failure or a plain one).
     * @return the fixed seeds, one from the clock, and those the properties ask for.
     */
    public static LongStream seeds(final long... fixed)
    {
        final Long extra = Long.getLong("floodgate.model.seed");
        final int count = Integer.getInteger("floodgate.model.seeds", extra == null ? 0 : 1);
        final long first = extra == null ? System.nanoTime() : extra;
        return LongStream.concat(LongStream.concat(LongStream.of(fixed), LongStream.of(System.nanoTime())),
            LongStream.range(0, count).map(i -> first + i));
    }

    /**
     * @param ciSteps the test's own count.
     * @return the steps per seed to run.
     */
    public static int steps(final int ciSteps)
    {
        return Integer.getInteger("floodgate.model.steps", ciSteps);
    }
}
