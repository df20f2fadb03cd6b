package dev.floodgate;

import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * {@code reconfigure} published under the policy guard without counting itself in the table's operations, so
 * {@code close()} on another thread released the process slot while the publisher still held the guard: any other
 * process (here: another instance) then found the holder "dead" and took the policy guard over from a live
 * publisher, and two publishers wrote the policy region at once (found by review; fails before).
 */
@Timeout(120)
class ClosePublishTest
{
    @TempDir
    Path dir;

    @Test
    void shouldNotLetAnotherProcessTakeOverThePolicyGuardOfAPublishInFlightAtClose() throws Exception
    {
        final Path file = dir.resolve("t.map");
        final HookedTicker ticker = new HookedTicker(new ManualTicker(1_000_000_000_000L));
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000).ticker(ticker)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build();
        final Floodgate gate = Floodgate.open(config);
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicReference<Throwable> publishError = new AtomicReference<>();
        final Thread publisher = new Thread(() ->
        {
            try
            {
                gate.reconfigure(FloodgateConfig.builder().file(file).capacity(1_000)
                    .limit(Action.PUBLISH, 5, FloodgateConfig.MAX_WINDOW_MS).build());
            }
            catch (final Throwable ex)
            {
                publishError.set(ex);
            }
        }, "publisher");
        // the publisher's first clock read is inside the policy guard (PolicyPublisher.publish)
        ticker.onNextRead(publisher, () ->
        {
            inside.countDown();
            Await.throughInterrupts("the test's release of the publish", release, 90);
            return 1_000_000_000_000L;
        });
        publisher.start();
        inside.await();
        final Thread closer = new Thread(gate::close, "closer");
        closer.start();
        // a close that waits for the publish is fine; one that returns has released the slot. It waits (or passes) in
        // Operations.endAndAwait: timed from there, not from the thread's start, which a loaded host can delay by
        // seconds and so let a close that returns pass for one that waits
        Await.until("the close reaching its wait for the table's operations in flight", 60,
            () -> !closer.isAlive() || inEndAndAwait(closer));
        closer.join(5_000);
        boolean takenOver = false;
        if (!closer.isAlive())
        {
            try (QuotaTable other = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
            {
                final long repairsBefore = other.guard().repairs();
                if (other.guard().acquirePolicy(200_000_000L))
                {
                    other.guard().releasePolicy();
                }
                takenOver = other.guard().repairs() > repairsBefore;
            }
        }
        release.countDown();
        publisher.join();
        closer.join();
        assertFalse(takenOver, "another process took the policy guard over from a live publisher: close() released " +
            "the slot under it (publisher ended with " + publishError.get() + ")");
    }

    private static boolean inEndAndAwait(final Thread thread)
    {
        return Arrays.stream(thread.getStackTrace()).anyMatch(frame ->
            frame.getClassName().equals("dev.floodgate.store.Operations") &&
                frame.getMethodName().equals("endAndAwait"));
    }
}
