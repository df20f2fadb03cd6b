package dev.floodgate;

import dev.floodgate.store.FileHeader;
import dev.floodgate.store.QuotaTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * {@code BackgroundAgent.close} stops the janitor with {@code shutdownNow()} and never waits for it: a scheduled
 * pass that has read its clock but not yet beaten (a thread descheduled there on a loaded host; an interrupt does
 * not stop it, it blocks on nothing) goes on after {@code close()} returned and the table released the process's
 * registry slot, and {@code Janitor.runPass} beats the heartbeat of that slot, which another process (here a second
 * instance) owns by then. It is the bug {@link ClockCloseTest} fixed for the clock thread, on the janitor thread.
 * The descheduling is a ticker read held on the janitor thread, ignoring the interrupt. The same holds for a pass an
 * operator's {@code cleanup()} runs on its own thread when another thread closes the instance: the pass beats
 * before any table operation, so close waits for nothing.
 */
@Timeout(120)
class JanitorCloseTest
{
    private static final long T0 = 1_000_000_000_000L;
    private static final long LATE = 9_000_000_000_000L; // what the stale pass's clock reads once it runs again

    @TempDir
    Path dir;

    /** A manual clock whose next read on the named thread waits, uninterruptibly, until released. */
    static final class StallingTicker implements Ticker
    {
        final String threadName;
        final AtomicLong time = new AtomicLong(T0);
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean armed = true;
        volatile Thread stalled;

        StallingTicker(final String threadName)
        {
            this.threadName = threadName;
        }

        @Override
        public long nanos()
        {
            if (armed && Thread.currentThread().getName().equals(threadName))
            {
                armed = false;
                stalled = Thread.currentThread();
                inside.countDown();
                boolean interrupted = false;
                while (true)
                {
                    try
                    {
                        release.await();
                        break;
                    }
                    catch (final InterruptedException ex)
                    {
                        interrupted = true; // a descheduled thread does not see shutdownNow's interrupt either
                    }
                }
                if (interrupted)
                {
                    Thread.currentThread().interrupt();
                }
                time.set(LATE);
            }
            return time.get();
        }
    }

    @Test
    void shouldNotBeatARegistrySlotAfterCloseReturned() throws Exception
    {
        final Path file = dir.resolve("t.map");
        final StallingTicker ticker = new StallingTicker("floodgate-janitor");
        final Floodgate first = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).ticker(ticker)
            .cleanupIntervalMs(20).limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build());
        assertEquals(true, ticker.inside.await(60, TimeUnit.SECONDS), "no janitor pass started");
        final Thread janitor = ticker.stalled;
        first.close(); // returns with the pass still in flight

        final ManualTicker secondTime = new ManualTicker(T0 + 1_000_000_000L);
        try (Floodgate second = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000)
            .ticker(secondTime).cleanupIntervalMs(FloodgateConfig.MAX_CLEANUP_INTERVAL_MS)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build());
            QuotaTable observer = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            final int base = FileHeader.processOffset(0); // the first instance's slot, the lowest free again
            final long secondOwner = observer.header().buffer().getLongVolatile(base + FileHeader.PROCESS_OWNER);
            final long before = observer.header().buffer().getLongVolatile(base + FileHeader.PROCESS_HEARTBEAT_NANOS);

            ticker.release.countDown(); // the closed instance's janitor pass goes on
            janitor.join(60_000);
            assertFalse(janitor.isAlive(), "the closed instance's janitor thread did not end");

            final long after = observer.header().buffer().getLongVolatile(base + FileHeader.PROCESS_HEARTBEAT_NANOS);
            assertEquals(secondOwner, observer.header().buffer().getLongVolatile(base + FileHeader.PROCESS_OWNER));
            assertEquals(before, after, "a janitor pass of an instance closed before the second one opened beat " +
                "slot 0's heartbeat (owner " + Long.toHexString(secondOwner) + ") after close() returned: " +
                "heartbeat " + before + " -> " + after);
        }
    }

    @Test
    void shouldNotBeatARegistrySlotFromACleanupCallAfterCloseReturned() throws Exception
    {
        final Path file = dir.resolve("t.map");
        final StallingTicker ticker = new StallingTicker("operator-cleanup");
        final Floodgate first = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).ticker(ticker)
            .cleanupIntervalMs(FloodgateConfig.MAX_CLEANUP_INTERVAL_MS)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build());
        final Thread operator = new Thread(() ->
        {
            try
            {
                first.cleanup();
            }
            catch (final RuntimeException closed)
            {
                // the pass's table and lock-file operations after close fail (IllegalStateException, or a
                // FloodgateFileException from the closed lock-file channel); what matters is what it wrote before
            }
        }, "operator-cleanup");
        operator.start();
        assertEquals(true, ticker.inside.await(60, TimeUnit.SECONDS), "the cleanup pass did not start");
        first.close(); // returns with the operator's pass still in flight

        final ManualTicker secondTime = new ManualTicker(T0 + 1_000_000_000L);
        try (Floodgate second = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000)
            .ticker(secondTime).cleanupIntervalMs(FloodgateConfig.MAX_CLEANUP_INTERVAL_MS)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build());
            QuotaTable observer = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            final int base = FileHeader.processOffset(0);
            final long secondOwner = observer.header().buffer().getLongVolatile(base + FileHeader.PROCESS_OWNER);
            final long before = observer.header().buffer().getLongVolatile(base + FileHeader.PROCESS_HEARTBEAT_NANOS);

            ticker.release.countDown();
            operator.join(60_000);
            assertFalse(operator.isAlive(), "the operator's cleanup() did not return");

            final long after = observer.header().buffer().getLongVolatile(base + FileHeader.PROCESS_HEARTBEAT_NANOS);
            assertEquals(secondOwner, observer.header().buffer().getLongVolatile(base + FileHeader.PROCESS_OWNER));
            assertEquals(before, after, "a cleanup() pass of an instance closed before the second one opened beat " +
                "slot 0's heartbeat (owner " + Long.toHexString(secondOwner) + ") after close() returned: " +
                "heartbeat " + before + " -> " + after);
        }
    }
}
