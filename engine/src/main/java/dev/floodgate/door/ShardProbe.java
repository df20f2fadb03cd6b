package dev.floodgate.door;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Picks a thread's home shard the way {@link java.util.concurrent.atomic.LongAdder} picks its cell: from the
 * thread's {@code threadLocalRandomProbe}, a field of {@link Thread} that costs one load to read and that
 * {@link #advance} moves on contention. Java has no portable way to ask which CPU a thread runs on; the probe
 * measures as fast and spreads racing threads as well once they collide.
 *
 * <p>Reading the field needs {@code --add-opens java.base/java.lang=ALL-UNNAMED}, one of the flags Chronicle
 * Map already requires; without it this class fails to initialise with a message naming the flag.
 */
public final class ShardProbe
{
    private static final VarHandle PROBE;

    static
    {
        try
        {
            PROBE = MethodHandles.privateLookupIn(Thread.class, MethodHandles.lookup())
                .findVarHandle(Thread.class, "threadLocalRandomProbe", int.class);
        }
        catch (final ReflectiveOperationException | IllegalAccessError | SecurityException ex)
        {
            throw new ExceptionInInitializerError(new IllegalStateException(
                "Floodgate needs the JVM flag --add-opens=java.base/java.lang=ALL-UNNAMED (see jvm.flags)", ex));
        }
    }

    private ShardProbe()
    {
    }

    /** @return the current thread's probe, never 0. */
    public static int probe()
    {
        final Thread thread = Thread.currentThread();
        final int probe = (int)PROBE.get(thread);
        if (probe != 0)
        {
            return probe;
        }
        ThreadLocalRandom.current(); // initialises the probe
        return (int)PROBE.get(thread);
    }

    /**
     * Moves the current thread to another shard after a lost compare-and-set (xorshift, as LongAdder does).
     *
     * @param probe the probe just used.
     * @return the new probe.
     */
    public static int advance(final int probe)
    {
        int p = probe;
        p ^= p << 13;
        p ^= p >>> 17;
        p ^= p << 5;
        PROBE.set(Thread.currentThread(), p);
        return p;
    }

    /**
     * @param probe a probe.
     * @param n     a shard count.
     * @return a shard in {@code [0, n)}, without a division.
     */
    public static int shard(final int probe, final int n)
    {
        return (int)(((probe & 0xFFFFFFFFL) * n) >>> 32);
    }
}
