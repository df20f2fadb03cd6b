package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.door.CoarseClock;
import dev.floodgate.door.Doors;
import dev.floodgate.store.PolicyRegion;

import java.lang.reflect.Field;

/**
 * What a soak reads of an open instance's insides, by reflection (the API exposes neither): the window door's coarse
 * clock, and the policy block (regimes and epochs) in force.
 */
public final class EngineTap
{
    private final Doors doors;
    private final CoarseClock clock;

    /** @param gate an open instance. */
    public EngineTap(final Floodgate gate) throws ReflectiveOperationException
    {
        final Object keeper = field(Floodgate.class, "keeper").get(gate);
        this.doors = (Doors) field(keeper.getClass(), "doors").get(keeper);
        this.clock = (CoarseClock) field(Doors.class, "clock").get(doors);
    }

    private static Field field(final Class<?> type, final String name) throws NoSuchFieldException
    {
        final Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field;
    }

    /** @return the window door's clock now (monotonic ns): a window check that starts later reads no earlier. */
    public long windowClock()
    {
        return clock.nanos();
    }

    /** @return the window door's coarse clock itself (its thread's sleep is package-private to the door). */
    public CoarseClock coarseClock()
    {
        return clock;
    }

    /** @param action an action. @return its block in the file's current policy. */
    public PolicyRegion.Block block(final Action action)
    {
        return doors.policy().block(action);
    }
}
