package dev.floodgate;

import dev.floodgate.testkit.Await;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A publish held at its clock read, which comes after it marked the actions it changes (PolicyPublisher.publish): a
 * publisher stopped mid-publish, until {@link #close}.
 */
final class StoppedPublish implements AutoCloseable
{
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final Thread publishing;

    /**
     * Starts {@code publisher.reconfigure(config)} on a thread of its own and returns once it is held.
     *
     * @param clockReads what the held clock read returns when released, ns.
     */
    StoppedPublish(final Floodgate publisher, final HookedTicker ticker, final FloodgateConfig config,
        final long clockReads) throws InterruptedException
    {
        final CountDownLatch inside = new CountDownLatch(1);
        publishing = new Thread(() ->
        {
            try
            {
                publisher.reconfigure(config);
            }
            catch (final Throwable ex)
            {
                failure.set(ex);
            }
        }, "publisher");
        ticker.onNextRead(publishing, () ->
        {
            inside.countDown();
            // bounded short of its users' @Timeout (60 s), so that a test failing before close() does not leave the
            // publish held, and with it the build
            Await.throughInterrupts("the test's release of the stopped publish", release, 45);
            return clockReads;
        });
        publishing.start();
        inside.await();
    }

    /** Lets the publish finish. @throws AssertionError when it failed. */
    @Override
    public void close() throws InterruptedException
    {
        release.countDown();
        publishing.join(10_000);
        if (failure.get() != null)
        {
            throw new AssertionError("the publish failed", failure.get());
        }
    }
}
