package dev.floodgate.cluster;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The client's shutdown wait ({@code LettuceClient.awaitThroughInterrupts}), on which {@code Floodgate.close} ends:
 * it must end at its deadline whatever interrupts arrive, and a shutdown that failed must not throw out of the close
 * (which then skipped the rest of the shutdown and the table's detach).
 */
class ShutdownWaitTest
{
    /** A shutdown that never ends, whose every timed wait is interrupted as it starts. */
    private static final class InterruptedAtEveryWait implements Future<Void>
    {
        final AtomicInteger waits = new AtomicInteger();

        @Override
        public Void get(final long timeout, final TimeUnit unit) throws InterruptedException
        {
            if (waits.incrementAndGet() < 100_000)
            {
                throw new InterruptedException(); // as a timed wait does when the status is set as it starts
            }
            return null; // so the wait ends even without its deadline test
        }

        @Override
        public Void get()
        {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean cancel(final boolean mayInterrupt)
        {
            return false;
        }

        @Override
        public boolean isCancelled()
        {
            return false;
        }

        @Override
        public boolean isDone()
        {
            return false;
        }
    }

    @Test
    @Timeout(60)
    void shouldEndAtItsDeadlineThoughInterruptedAtEveryWait()
    {
        final InterruptedAtEveryWait shutdown = new InterruptedAtEveryWait();
        final boolean interrupted = LettuceClient.awaitThroughInterrupts("a test's shutdown", shutdown,
            System.nanoTime() - 1);
        assertTrue(interrupted, "the interrupt is reported, for the caller to give it back");
        assertEquals(1, shutdown.waits.get(), "waits past the deadline, one interrupted wait after another");
    }

    @Test
    @Timeout(60)
    void shouldNotThrowWhenTheShutdownFailed()
    {
        final java.util.concurrent.CompletableFuture<Void> failed = new java.util.concurrent.CompletableFuture<>();
        failed.completeExceptionally(new IllegalStateException("a test's failed shutdown"));
        final boolean interrupted = LettuceClient.awaitThroughInterrupts("a test's shutdown", failed,
            System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        assertEquals(false, interrupted);
        assertEquals(false, Thread.currentThread().isInterrupted());
    }
}
