package dev.floodgate;

import dev.floodgate.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * Two {@code close()} calls at once (an application's close racing its shutdown hook): {@code Floodgate.close} says
 * that once it returns neither background thread runs, and it is idempotent and thread-safe. The second call
 * returned at once while the first was still detaching, its janitor pass in flight (found by review): a shutdown hook
 * that returned so let the JVM halt in the middle of the first close (the node's last give-back to Redis, the fold of
 * its counts). The janitor pass is held at its clock read, as in {@link JanitorCloseTest}.
 */
@Timeout(120)
class ConcurrentCloseTest
{
    @TempDir
    Path dir;

    @Test
    void aSecondCloseReturnsOnlyOnceTheFirstHasEnded() throws Exception
    {
        final JanitorCloseTest.StallingTicker ticker = new JanitorCloseTest.StallingTicker("floodgate-janitor");
        final Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("t.map")).capacity(1_000)
            .ticker(ticker).cleanupIntervalMs(20).limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build());
        try
        {
            assertEquals(true, ticker.inside.await(60, TimeUnit.SECONDS), "no janitor pass started");
            final Thread janitor = ticker.stalled;
            final Thread first = new Thread(gate::close, "first-close");
            first.start();
            Await.until("the first close waiting for the janitor thread", 60, () -> in(first, "awaitJanitor"));

            final AtomicBoolean janitorAliveAtReturn = new AtomicBoolean();
            final CountDownLatch returned = new CountDownLatch(1);
            final Thread second = new Thread(() ->
            {
                gate.close();
                janitorAliveAtReturn.set(janitor.isAlive());
                returned.countDown();
            }, "second-close");
            second.start();
            try
            {
                Await.until("the second close returning or waiting for the first", 60, () ->
                    returned.getCount() == 0 || second.getState() == Thread.State.BLOCKED ||
                        second.getState() == Thread.State.WAITING);
            }
            finally
            {
                ticker.release.countDown();
            }
            first.join(60_000);
            second.join(60_000);
            assertFalse(first.isAlive() || second.isAlive(), "a close did not return");
            assertFalse(janitorAliveAtReturn.get(), "the second close() returned while the first was still " +
                "detaching, its janitor thread in a pass");
        }
        finally
        {
            ticker.release.countDown();
            gate.close();
        }
    }

    private static boolean in(final Thread thread, final String method)
    {
        return Arrays.stream(thread.getStackTrace()).anyMatch(frame -> frame.getMethodName().equals(method));
    }
}
