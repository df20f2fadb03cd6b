package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

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
        final AtomicInteger janitorReads = new AtomicInteger();
        final CountDownLatch laterPass = new CountDownLatch(1);
        final ManualTicker time = new ManualTicker(1_000_000_000_000L);
        final Ticker ticker = () ->
        {
            if (Thread.currentThread().getName().equals("floodgate-janitor"))
            {
                if (janitorReads.incrementAndGet() == 1)
                {
                    throw new OutOfMemoryError("simulated: one janitor pass runs out of heap");
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
                "one pass threw an Error (" + janitorReads.get() + " janitor clock reads): the schedule is gone");
        }
    }

    @Test
    void shouldKeepRunningScheduledPassesAfterOneFailedAndItsLogFailed() throws Exception
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
                    throw new IllegalStateException("simulated: one janitor pass fails");
                }
                laterPass.countDown();
            }
            return time.nanos();
        };
        final Logger jul = Logger.getLogger("dev.floodgate");
        final Handler failing = new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                if (String.valueOf(record.getMessage()).contains("janitor pass over"))
                {
                    throw new IllegalStateException("log handler failed");
                }
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
        jul.addHandler(failing);
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("t.map")).capacity(1_000)
            .ticker(ticker).cleanupIntervalMs(20).limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build()))
        {
            assertTrue(laterPass.await(10, TimeUnit.SECONDS), "no scheduled janitor pass ran in the 10 s after " +
                "one pass failed and its log failed (" + janitorReads.get() + " janitor clock reads): the schedule " +
                "is gone");
        }
        finally
        {
            jul.removeHandler(failing);
        }
    }
}
