package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.door.LeaseSource;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A lease source that forwards every call to a real one; a refund is sent at once ({@link SentRefund}), and Redis's
 * answer to it is there when the engine's wait for it begins, so no real-time bound of the engine's (a close's 100 ms
 * per refund, {@code LeaseRefund.CLOSE_REFUND_WAIT_NANOS}; an idle pass's 1 s and 50 ms), which a round trip beside
 * CPU hogs can pass, decides a test's verdict. What the engine does with the answer is unchanged: a give-back that
 * stops after a refund, or that never sends one, still shows in what Redis records.
 */
public final class AnsweredAsItWaits extends ForwardingLeaseSource
{
    private final LeaseSource real;

    public AnsweredAsItWaits(final LeaseSource real)
    {
        super(real);
        this.real = real;
    }

    @Override
    public CompletionStage<Grant> refund(final Action action, final String identifier, final long sequence,
        final long tokens)
    {
        return new AnswerAsTheWaitBegins(new SentRefund(real, action, identifier, sequence, tokens));
    }

    /**
     * A refund's answer, there as soon as a timed wait on it ({@code LeaseRefund.await}'s) begins. A wait that begins
     * with its thread's interrupt status set ends as the JDK's does, at once and the status cleared, the answer there
     * by then: a wait that looks again gets it; one that took the interrupt for its answer lost it, in every run (in 3
     * of 6 while the real answer raced the wait).
     */
    private static final class AnswerAsTheWaitBegins extends CompletableFuture<LeaseSource.Grant>
    {
        private final SentRefund sent;

        AnswerAsTheWaitBegins(final SentRefund sent)
        {
            this.sent = sent;
        }

        @Override
        public LeaseSource.Grant get(final long timeout, final TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException
        {
            final boolean interrupted = Thread.interrupted();
            if (!isDone())
            {
                complete(sent.answer()); // waited for here, outside the engine's bound
            }
            if (interrupted)
            {
                throw new InterruptedException("the refund's wait began on an interrupted thread");
            }
            return super.get(timeout, unit);
        }
    }
}
