package dev.floodgate;

import dev.floodgate.testkit.FailingLog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code BackgroundAgent.scheduledCleanup} catches {@code RuntimeException} only. An {@code Error} out of one
 * scheduled janitor pass (an {@code OutOfMemoryError} while it copies the keys of a large table, a
 * {@code StackOverflowError} inside Chronicle) reaches the {@code ScheduledExecutorService}, which then cancels
 * the periodic task for good, and says nothing (the future holding the error is never read): no pass runs again
 * while the JVM lives, idle entries are never reclaimed and the table fills up. The clock thread was fixed for
 * this (NOTES, smaller fixes); the janitor thread was not. The error is thrown from the pass's first clock read.
 * Likewise a {@code RuntimeException} whose error log throws (a failing handler, as in
 * {@link TakeoverLogFailureTest}): the log call sits unguarded in the catch block.
 */
@Timeout(120)
class JanitorErrorTest
{
    @TempDir
    Path dir;

    @Test
    void shouldKeepRunningScheduledPassesAfterOneFailedWithAnError() throws Exception
    {
        assertPassesGoOnAfterTheFirstThrows(new OutOfMemoryError("simulated: one janitor pass runs out of heap"));
    }

    @Test
    void shouldKeepRunningScheduledPassesAfterOneFailedAndItsLogFailed() throws Exception
    {
        try (FailingLog failing = FailingLog.on("janitor pass over"))
        {
            assertPassesGoOnAfterTheFirstThrows(new IllegalStateException("simulated: one janitor pass fails"));
        }
    }

    /** The first scheduled pass throws {@code failure} from its first clock read; a later pass must still run. */
    private void assertPassesGoOnAfterTheFirstThrows(final Throwable failure) throws Exception
    {
        final AtomicInteger janitorReads = new AtomicInteger();
        final CountDownLatch laterPass = new CountDownLatch(1);
        final ManualTicker time = new ManualTicker(1_000_000_000_000L);
        final Ticker ticker = () ->
        {
            if (Thread.currentThread().getName().equals("floodgate-janitor"))
            {
                if (janitorReads.incrementAndGet() == 1)
                {
                    throwUnchecked(failure);
                }
                laterPass.countDown();
            }
            return time.nanos();
        };
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("t.map")).capacity(1_000)
            .ticker(ticker).cleanupIntervalMs(20).limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build()))
        {
            // 500 intervals: the next scheduled pass reads the clock within 20 ms unless the schedule was dropped
            assertTrue(laterPass.await(10, TimeUnit.SECONDS), "no scheduled janitor pass ran in the 10 s after " +
                "one pass threw " + failure + " (" + janitorReads.get() + " janitor clock reads): the schedule is gone");
        }
    }

    private static void throwUnchecked(final Throwable failure)
    {
        if (failure instanceof Error error)
        {
            throw error;
        }
        throw (RuntimeException)failure;
    }
}
