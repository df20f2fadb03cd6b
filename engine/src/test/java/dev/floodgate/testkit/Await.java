package dev.floodgate.testkit;

import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Spins until a condition another thread brings about holds, for a bounded time. A spin loop does not see the
 * interrupt JUnit's {@code @Timeout} sends, so one without a deadline of its own turns a regression (the thread it
 * waits for never gets there) into a hung build instead of a failed test.
 */
public final class Await
{
    private Await()
    {
    }

    /**
     * @param what      what the condition means, for the failure's message.
     * @param seconds   how long to wait at most.
     * @param condition what to wait for; polled without pause, so a test can act right after it turns true.
     * @throws AssertionError when it is still false after {@code seconds}.
     */
    public static void until(final String what, final long seconds, final BooleanSupplier condition)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError(what + ": not within " + seconds + " s");
            }
            Thread.onSpinWait();
        }
    }
}
