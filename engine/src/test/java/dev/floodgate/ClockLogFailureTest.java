package dev.floodgate;

import dev.floodgate.store.ProcessRegistry;
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
 * The clock thread catches {@code Throwable} from its periodic task and logs it, but the log call sits in the
 * catch block unguarded: when it throws too (a failing handler, as in {@link TakeoverLogFailureTest}; in
 * production equally a second {@code OutOfMemoryError} while the message is built after a first one in the
 * heartbeat) the clock thread dies. The heartbeat then stops while the JVM lives (its stale heartbeat holds back
 * reclamation in every JVM of the node, for good) and, with the system ticker, the window door's coarse clock
 * freezes (windows never roll over: a spent quota is refused until the JVM restarts). Here the heartbeat's clock
 * read throws once and the handler throws on the clock thread's error message.
 */
@Timeout(120)
class ClockLogFailureTest
{
    @TempDir
    Path dir;

    private static boolean insideHeartbeat()
    {
        return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames -> frames
            .anyMatch(f -> f.getDeclaringClass() == ProcessRegistry.class && f.getMethodName().equals("heartbeat")));
    }

    @Test
    void shouldKeepBeatingAfterAFailedBeatWhoseLogFailed() throws Exception
    {
        final AtomicInteger beats = new AtomicInteger();
        final CountDownLatch laterBeat = new CountDownLatch(1);
        final Ticker ticker = () ->
        {
            if (Thread.currentThread().getName().equals("floodgate-clock") && insideHeartbeat())
            {
                final int n = beats.incrementAndGet();
                if (n == 2)
                {
                    throw new OutOfMemoryError("simulated: the heartbeat runs out of heap");
                }
                if (n > 2)
                {
                    laterBeat.countDown();
                }
            }
            return System.nanoTime(); // real time, but injected: the clock thread beats every 100 ms
        };
        try (FailingLog failing = FailingLog.on("periodic task failed");
            Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("t.map")).capacity(1_000)
                .ticker(ticker).cleanupIntervalMs(FloodgateConfig.MAX_CLEANUP_INTERVAL_MS)
                .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build()))
        {
            // 100 heartbeat periods
            assertTrue(laterBeat.await(10, TimeUnit.SECONDS), "no heartbeat in the 10 s after one beat failed " +
                "and its log failed too (" + beats.get() + " beats): the clock thread died");
        }
    }
}
