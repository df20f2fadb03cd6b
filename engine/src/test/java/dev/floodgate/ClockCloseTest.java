package dev.floodgate;

import dev.floodgate.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * {@code CoarseClock.close} waited for its thread with {@code join}, which an interrupted caller skips
 * (InterruptedException at once): {@code close()} from an interrupted thread (a pool shut down with shutdownNow, a
 * cancelled task) returned while the clock thread was still about to run its periodic task, which then beat a
 * registry slot this instance had left (and that another process may own by then). Found by review; fails before.
 */
@Timeout(120)
class ClockCloseTest
{
    private static final long T0 = 1_000_000_000_000L;
    private static final long T1 = 2_000_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void shouldNotHeartbeatAfterCloseFromAnInterruptedThread() throws Exception
    {
        final Path file = dir.resolve("t.map");
        final ManualTicker time = new ManualTicker(T0);
        final HookedTicker ticker = new HookedTicker(time);
        final Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).ticker(ticker)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build());
        final Thread clock = Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().equals("floodgate-clock")).findFirst().orElseThrow();
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        ticker.onNextRead(clock, () ->
        {
            inside.countDown(); // the clock thread's loop read, just before its periodic task
            Await.throughInterrupts("the test's release of the clock thread", release, 90);
            return T1; // past the next heartbeat: the periodic task runs
        });
        inside.await();
        final AtomicBoolean clockAliveAfterClose = new AtomicBoolean(true);
        final Thread closer = new Thread(() ->
        {
            Thread.currentThread().interrupt();
            gate.close();
            clockAliveAfterClose.set(clock.isAlive());
        }, "interrupted-closer");
        closer.start();
        // until close() has either returned or is waiting for the clock thread: then let the clock thread go on
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (closer.getState() != Thread.State.WAITING && closer.getState() != Thread.State.TERMINATED &&
            System.nanoTime() - deadline < 0)
        {
            Thread.onSpinWait();
        }
        time.set(T1);
        release.countDown();
        clock.join();
        closer.join();
        assertFalse(clockAliveAfterClose.get(), "close() returned while the clock thread could still run its " +
            "periodic task (a heartbeat into the registry slot close() then leaves)");
    }
}
