package dev.floodgate;

import dev.floodgate.store.FileHeader;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A janitor pass in flight when {@code close()} runs. {@code BackgroundAgent.close} stops the janitor with
 * {@code shutdownNow()}, whose interrupt does not stop a pass (it blocks on nothing; a thread descheduled on a loaded
 * host does not see it). Once, close did not wait for the thread either, and a pass that had read its clock but not
 * yet beaten went on after close returned and beat the heartbeat of the registry slot the table had released, by then
 * a second instance's ({@link ClockCloseTest} is the same bug on the clock thread). Now close waits for the janitor
 * thread, whose pass is one table operation that fails at its next step (the first test), and a pass an operator's
 * {@code cleanup()} runs on its own thread, which close does not wait for when it is before its first step, beats no
 * slot once its instance has left the registry (the second). The descheduling is a ticker read held on the pass's
 * thread, ignoring the interrupt.
 */
@Timeout(120)
class JanitorCloseTest
{
    private static final long T0 = 1_000_000_000_000L;
    private static final long LATE = 9_000_000_000_000L; // what the stale pass's clock reads once it runs again

    @TempDir
    Path dir;

    /** A manual clock whose next read on the named thread waits, through interrupts, until released (90 s at most). */
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
                Await.throughInterrupts("the test's release of the held clock read", release, 90);
                time.set(LATE);
            }
            return time.get();
        }
    }

    /**
     * Close waits for the janitor thread: a scheduled pass stalled when close begins (here before its first step, at
     * its clock read, outside any table operation, so the table's own wait did not cover it) is let go once close
     * waits for the thread, and nothing of it runs after close returns. Before (found by review), close returned
     * with the thread still in its pass, which then counted a janitor run in the file; that a pass so late beats no
     * slot is {@code ProcessRegistry.unregister}'s (the second test), and that it touches nothing now is its being
     * one table operation.
     */
    @Test
    void shouldEndTheJanitorThreadBeforeCloseReturnsAndTouchNothingAfter() throws Exception
    {
        final Path file = dir.resolve("t.map");
        final StallingTicker ticker = new StallingTicker("floodgate-janitor");
        final Floodgate first = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).ticker(ticker)
            .cleanupIntervalMs(20).limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build());
        try (QuotaTable observer = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            assertEquals(true, ticker.inside.await(60, TimeUnit.SECONDS), "no janitor pass started");
            final Thread janitor = ticker.stalled;
            final long runsBefore = janitorRuns(observer);
            final AtomicBoolean aliveAtReturn = new AtomicBoolean();
            final AtomicLong runsAtReturn = new AtomicLong();
            final CountDownLatch returned = new CountDownLatch(1);
            final Thread closer = new Thread(() ->
            {
                first.close();
                aliveAtReturn.set(janitor.isAlive());
                runsAtReturn.set(janitorRuns(observer));
                returned.countDown();
            }, "closer");
            closer.start();
            try
            {
                Await.until("close returning or waiting for the janitor thread", 60,
                    () -> returned.getCount() == 0 || waitsForTheJanitor(closer));
            }
            finally
            {
                ticker.release.countDown(); // the pass goes on
            }
            closer.join(60_000);
            assertFalse(closer.isAlive(), "close() did not return once the janitor pass went on");
            janitor.join(60_000);
            assertFalse(janitor.isAlive(), "the closed instance's janitor thread did not end");
            assertFalse(aliveAtReturn.get(), "close() returned with the janitor thread still in its pass");
            assertEquals(runsBefore, runsAtReturn.get(), "the janitor runs counted by the time close returned");
            assertEquals(runsBefore, janitorRuns(observer), "a janitor pass in flight at close() wrote to the file " +
                "after close() returned (the janitor runs counter)");
        }
    }

    private static long janitorRuns(final QuotaTable observer)
    {
        return observer.header().buffer().getLongVolatile(FileHeader.JANITOR_RUNS_OFFSET);
    }

    private static boolean waitsForTheJanitor(final Thread closer)
    {
        return Arrays.stream(closer.getStackTrace()).anyMatch(frame ->
            frame.getClassName().equals("dev.floodgate.BackgroundAgent") &&
                frame.getMethodName().equals("awaitJanitor"));
    }

    @Test
    void shouldNotBeatARegistrySlotFromACleanupCallAfterCloseReturned() throws Exception
    {
        final Path file = dir.resolve("t.map");
        final StallingTicker ticker = new StallingTicker("operator-cleanup");
        final Floodgate first = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).ticker(ticker)
            .cleanupIntervalMs(FloodgateConfig.MAX_CLEANUP_INTERVAL_MS)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build());
        final AtomicReference<Throwable> ended = new AtomicReference<>();
        final Thread operator = new Thread(() ->
        {
            try
            {
                first.cleanup();
            }
            catch (final RuntimeException closed)
            {
                ended.set(closed);
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
            // as every call of a closed instance (it ended in a FloodgateFileException from the closed lock-file
            // channel once, its pass not being one table operation: the slot was left under it)
            assertEquals(IllegalStateException.class, ended.get() == null ? null : ended.get().getClass(),
                "the cleanup() in flight at close ended with " + ended.get());

            final long after = observer.header().buffer().getLongVolatile(base + FileHeader.PROCESS_HEARTBEAT_NANOS);
            assertEquals(secondOwner, observer.header().buffer().getLongVolatile(base + FileHeader.PROCESS_OWNER));
            assertEquals(before, after, "a cleanup() pass of an instance closed before the second one opened beat " +
                "slot 0's heartbeat (owner " + Long.toHexString(secondOwner) + ") after close() returned: " +
                "heartbeat " + before + " -> " + after);
        }
    }
}
