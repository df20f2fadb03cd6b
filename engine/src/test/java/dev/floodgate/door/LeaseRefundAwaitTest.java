package dev.floodgate.door;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link LeaseRefund#await} waits out an interrupt within its bound. It looped on every {@code InterruptedException}
 * and never looked at its deadline itself, leaving that to the future's timed wait, which tests the interrupt status
 * before the time: a thread interrupted again at every wait (a caller's executor cancelling it over and over) waited
 * past the bound for as long as the interrupts came, holding the give-backs' lock, and with it a close
 * ({@code LeaseGiveBack.endIdle}). Found by review; failed before with some 100,000 waits past the deadline.
 */
@Timeout(60)
class LeaseRefundAwaitTest
{
    /** Far more than one wait past the deadline; then it stops interrupting, so the old loop ends too. */
    private static final int INTERRUPTS = 100_000;

    @Test
    void shouldAnswerUnavailableAtItsBoundThoughInterruptedAtEveryWait()
    {
        final InterruptedAtEveryWait never = new InterruptedAtEveryWait();
        try
        {
            final LeaseSource.Grant answer = LeaseRefund.await(never, TimeUnit.MILLISECONDS.toNanos(20));
            assertEquals(LeaseSource.UNAVAILABLE, answer.status());
            assertTrue(never.pastDeadline <= 1, "await waited " + never.pastDeadline + " times past its 20 ms " +
                "bound, interrupted at each wait (of " + never.waits + ")");
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt status given back");
        }
        finally
        {
            Thread.interrupted();
        }
    }

    @Test
    void shouldReturnTheAnswerOfAnInterruptedWait()
    {
        final CompletableFuture<LeaseSource.Grant> answered = new CompletableFuture<>();
        answered.complete(new LeaseSource.Grant(LeaseSource.GRANTED, 5, 0));
        Thread.currentThread().interrupt();
        try
        {
            assertEquals(LeaseSource.GRANTED, LeaseRefund.await(answered, TimeUnit.MILLISECONDS.toNanos(20)).status());
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt status kept");
        }
        finally
        {
            Thread.interrupted();
        }
    }

    /** Never answered; each timed wait on it is interrupted as it starts, the first {@link #INTERRUPTS}. */
    private static final class InterruptedAtEveryWait extends CompletableFuture<LeaseSource.Grant>
    {
        int waits;
        int pastDeadline; // waits asked for with no time left

        @Override
        public LeaseSource.Grant get(final long timeout, final TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException
        {
            waits++;
            pastDeadline += timeout <= 0 ? 1 : 0;
            if (waits <= INTERRUPTS)
            {
                Thread.currentThread().interrupt();
            }
            return super.get(timeout, unit);
        }
    }
}
