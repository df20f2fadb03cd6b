package dev.floodgate.testkit;

import java.util.concurrent.CountDownLatch;
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

    /**
     * Waits for a latch another thread opens, through interrupts, for a bounded time: for a hook standing for a
     * descheduled thread, which does not see an interrupt either (a close's {@code shutdownNow}). The interrupt
     * status is given back. Bounded, so that a test that never opens it fails instead of hanging the build: the held
     * thread goes on, and with it a close that waits for that thread, uninterruptibly.
     *
     * @param what    what the latch means, for the failure's message.
     * @param latch   what to wait for.
     * @param seconds how long to wait at most: past the test's own waits, short of its {@code @Timeout}.
     * @throws AssertionError on the held thread when the latch is still closed after {@code seconds}.
     */
    public static void throughInterrupts(final String what, final CountDownLatch latch, final long seconds)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        boolean interrupted = false;
        try
        {
            while (true)
            {
                try
                {
                    if (latch.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS))
                    {
                        return;
                    }
                    throw new AssertionError(what + ": not within " + seconds + " s");
                }
                catch (final InterruptedException ex)
                {
                    interrupted = true;
                }
            }
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
