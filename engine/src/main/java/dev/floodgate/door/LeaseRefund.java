package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Ticker;
import dev.floodgate.store.Entry;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * One give-back of a lease's unspent tokens to the cluster's bucket (issue 12), for {@link LeaseGiveBack}'s passes,
 * under the entry's protocol (load, generation test, compare-and-set) at every step: take the lease's refill word
 * (a lease whose refill is in flight is in use: skipped), take the whole balance, each of its words by one
 * compare-and-set to 0 ({@link LeaseBalance#takeAll}), move the sequence on first
 * ({@link LeaseRefill#reserveSequence}), send the refund with the old number and wait for it, then release the
 * word. <b>Guaranteed under concurrency</b>, across every JVM of the node: a token is spent by a check or given
 * back, never both (a word's compare-and-set decides); the server applies a refund at most once (its sequence is
 * the node's, used once); holding the refill word keeps the node's requests for the bucket one at a time. A JVM
 * killed after the compare-and-set loses those tokens, and a refund answered unavailable may or may not have been
 * applied, so its tokens are not put back: both under-admit, never over (an interrupt is no answer: {@link #await}).
 * A stale answer changed nothing on the server: the tokens go back into the balance. The refund's number may be that
 * of a lease that timed out after the server applied it (no check retried it since): the server gives that grant
 * back with the refund, which before was answered stale and the grant lost to every node. Thread-safe.
 */
final class LeaseRefund
{
    /** {@link #giveBack}: nothing given back (the lease in use, empty, or its sequence moved on); go on. */
    static final int SKIPPED = 0;
    /** {@link #giveBack}: the server applied the refund. */
    static final int GIVEN = 1;
    /** {@link #giveBack}: the refund got no answer in time (maybe applied): the source is presumed unavailable. */
    static final int DOWN = 2;
    /** A close waits this long for each refund: a close must not take a stalled Redis's bound per lease. */
    static final long CLOSE_REFUND_WAIT_NANOS = 2 * LeaseWait.CHECK_WAIT_NANOS;

    private final LeaseSource source;
    private final Ticker ticker;
    private final long takeoverNanos;
    private final RefillHolders holders;

    LeaseRefund(final LeaseSource source, final Ticker ticker, final long takeoverNanos, final RefillHolders holders)
    {
        this.source = source;
        this.ticker = ticker;
        this.takeoverNanos = takeoverNanos;
        this.holders = holders;
    }

    /**
     * An idle pass, on the janitor thread, waits for a refund as long as the source may take (1 s for Redis, for
     * loaded hosts) and 50 ms for a broken one: at 100 ms, as it once did, a refund answered in 150 ms was taken for
     * Redis unavailable and ended the pass (found by review).
     */
    long idleRefundWaitNanos()
    {
        return TimeUnit.MILLISECONDS.toNanos(source.timeoutMs()) + LeaseWait.CHECK_WAIT_NANOS;
    }

    /**
     * One give-back, as the class says.
     *
     * @param waitNanos how long to wait for the refund's answer; none by then counts as unavailable.
     * @return {@link #GIVEN}, {@link #SKIPPED} or {@link #DOWN}.
     */
    int giveBack(final QuotaSlot slot, final Action action, final long waitNanos)
    {
        final Entry entry = slot.entry;
        final long generation = slot.generation;
        final long claim = LeaseRefill.claimRefill(entry, generation, ticker.nanos(), takeoverNanos, holders);
        if (claim == 0)
        {
            return SKIPPED; // a refill in flight: the lease is in use
        }
        try
        {
            final long tokens = LeaseBalance.takeAll(entry, generation);
            if (tokens == 0)
            {
                return SKIPPED;
            }
            final long sequence = LeaseRefill.sequence(entry);
            if (!LeaseRefill.reserveSequence(entry, generation, sequence))
            {
                LeaseBalance.giveBack(entry, generation, tokens); // nothing sent: the tokens are still the node's
                return SKIPPED;
            }
            final LeaseSource.Grant answer = await(source.refund(action, slot.identifier, sequence, tokens),
                waitNanos);
            switch (answer.status())
            {
                case LeaseSource.GRANTED:
                    return GIVEN;
                case LeaseSource.STALE:
                    // the server changed nothing: the tokens are still the node's, and its sequence is behind
                    LeaseBalance.giveBack(entry, generation, tokens);
                    LeaseRefill.skipStale(entry, generation, sequence + 1, System.currentTimeMillis());
                    return SKIPPED;
                default:
                    return DOWN; // maybe applied: the tokens are not put back, which can only under-admit
            }
        }
        finally
        {
            LeaseRefill.releaseRefill(entry, generation, claim);
        }
    }

    /**
     * @return the stage's answer, or {@link LeaseSource#UNAVAILABLE} after {@code maxNanos} (the source completes
     * within its bound; the margin only guards against a broken one). An interrupt does not end the wait, which stays
     * within {@code maxNanos}, and its status is given back: the tokens are out of the balance and the refund sent, so
     * an answer cut short lost them, applied or not (found by review: close() interrupts the janitor thread's idle
     * give-back, and closed the client before the refund reached Redis).
     */
    static LeaseSource.Grant await(final CompletionStage<LeaseSource.Grant> stage, final long maxNanos)
    {
        boolean interrupted = false;
        try
        {
            final CompletableFuture<LeaseSource.Grant> future = stage.toCompletableFuture();
            final long deadline = System.nanoTime() + maxNanos;
            while (true)
            {
                try
                {
                    return future.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
                catch (final InterruptedException ex)
                {
                    interrupted = true; // waited out, within the same deadline
                    if (deadline - System.nanoTime() <= 0)
                    {
                        // the timed wait tests the interrupt before the time: one at every wait held it past here
                        return future.isDone() ? future.join() : new LeaseSource.Grant(LeaseSource.UNAVAILABLE, 0, 0);
                    }
                }
            }
        }
        catch (final Exception ex)
        {
            return new LeaseSource.Grant(LeaseSource.UNAVAILABLE, 0, 0);
        }
        finally
        {
            if (interrupted)
            {
                Thread.currentThread().interrupt();
            }
        }
    }
}
