package dev.floodgate;

import dev.floodgate.testkit.Await;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An operator's {@code cleanup()} on its own thread ends with an idle give-back ({@code LeaseGiveBack.giveBackIdle}),
 * which takes a lease's balance out of the file before it refunds it. That give-back was no table operation: a
 * {@code close()} on another thread (with a sibling attached, so no give-back of its own at close) neither waited for
 * it nor stopped it, and it took the balance out of the file after close returned, from a process that had left the
 * registry, and lost it to the closed Redis client (found by review). The descheduling is the give-back's first
 * ticker read, held on the operator's thread.
 */
@Timeout(120)
class CleanupGiveBackCloseTest
{
    private static final long WINDOW_MS = 60_000;

    @TempDir
    Path dir;

    /**
     * A manual clock whose read inside an idle give-back on the named thread waits, through interrupts, until released
     * (90 s at most), once.
     */
    static final class StallingTicker implements Ticker
    {
        final AtomicLong time = new AtomicLong(1_000_000_000_000L);
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile boolean armed;

        @Override
        public long nanos()
        {
            if (armed && Thread.currentThread().getName().equals("operator-cleanup") && inIdleGiveBack())
            {
                armed = false;
                inside.countDown();
                Await.throughInterrupts("the test's release of the held clock read", release, 90);
            }
            return time.get();
        }

        private static boolean inIdleGiveBack()
        {
            return Arrays.stream(Thread.currentThread().getStackTrace()).anyMatch(frame ->
                frame.getClassName().equals("dev.floodgate.door.LeaseGiveBack") &&
                    frame.getMethodName().equals("giveBackIdle"));
        }
    }

    @Test
    void shouldTakeNoLeaseBalanceFromTheFileAfterCloseReturned() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final StallingTicker ticker = new StallingTicker();
            final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("node.map")).capacity(1_000)
                .ticker(ticker).cleanupIntervalMs(FloodgateConfig.MAX_CLEANUP_INTERVAL_MS)
                .limit(Action.PUBLISH, 1_000, WINDOW_MS).clusterRedisUri(redis.uri())
                .clusterLimit(Action.PUBLISH, 10, WINDOW_MS).clusterLease(Action.PUBLISH, 6)
                .clusterFallbackLocal(Action.PUBLISH, false).build();
            final Floodgate first = Floodgate.open(config);
            try (Floodgate sibling = Floodgate.open(config))
            {
                admit(first, ticker, "bob"); // leases 6: 5 left
                first.cleanup(); // the idle give-back sees the lease
                ticker.time.addAndGet(TimeUnit.MILLISECONDS.toNanos(WINDOW_MS)); // idle for a window
                assertEquals(5, unused(sibling), "the lease's balance in the file");

                ticker.armed = true;
                final Thread operator = new Thread(() ->
                {
                    try
                    {
                        first.cleanup();
                    }
                    catch (final RuntimeException closed)
                    {
                        // a call of an instance closed meanwhile may throw: not what this test judges
                    }
                }, "operator-cleanup");
                operator.start();
                assertTrue(ticker.inside.await(60, TimeUnit.SECONDS), "the idle give-back did not start");

                final AtomicLong unusedAtReturn = new AtomicLong(-1);
                final CountDownLatch returned = new CountDownLatch(1);
                final Thread closer = new Thread(() ->
                {
                    first.close(); // a sibling is attached: the balances stay for it
                    unusedAtReturn.set(unused(sibling));
                    returned.countDown();
                }, "closer");
                closer.start();
                try
                {
                    Await.until("close returning or waiting for the give-back in flight", 60,
                        () -> returned.getCount() == 0 || waitsForTheGiveBack(closer));
                }
                finally
                {
                    ticker.release.countDown(); // the give-back goes on
                }
                closer.join(60_000);
                assertFalse(closer.isAlive(), "close() did not return");
                operator.join(60_000);
                assertFalse(operator.isAlive(), "the operator's cleanup() did not return");
                assertEquals(unusedAtReturn.get(), unused(sibling), "the closed instance's cleanup() took a lease's " +
                    "balance out of the file after close() returned (tokens unused in the file: " +
                    unusedAtReturn.get() + " when close returned, " + unused(sibling) + " now)");
            }
            finally
            {
                first.close();
            }
        }
    }

    private static long unused(final Floodgate gate)
    {
        return gate.stats().cluster().tokensUnused();
    }

    /**
     * In the client's close, for the idle passes' end ({@code LeaseGiveBack.endIdle}), or in the table's detach, for
     * the operations in flight: either waits for the give-back.
     */
    private static boolean waitsForTheGiveBack(final Thread closer)
    {
        return Arrays.stream(closer.getStackTrace()).anyMatch(frame ->
            frame.getClassName().equals("dev.floodgate.store.Operations") &&
                frame.getMethodName().equals("endAndAwait") ||
                frame.getClassName().equals("dev.floodgate.door.LeaseGiveBack") &&
                    frame.getMethodName().equals("endIdle"));
    }

    private static void admit(final Floodgate gate, final StallingTicker ticker, final String identifier)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        long result;
        while ((result = gate.checkLimit(identifier, Action.PUBLISH)) != Floodgate.ADMITTED &&
            System.nanoTime() - deadline < 0)
        {
            ticker.time.addAndGet(TimeUnit.MILLISECONDS.toNanos(100)); // the JVM asks again after 2 x 50 ms
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
        assertEquals(Floodgate.ADMITTED, result, identifier);
    }
}
