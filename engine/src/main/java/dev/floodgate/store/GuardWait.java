package dev.floodgate.store;

import org.agrona.concurrent.AtomicBuffer;

import java.util.concurrent.locks.LockSupport;

/**
 * Waiting for a guard word another owner holds ({@link TableGuard}): spin briefly, yield, then back off; about every
 * millisecond ask the kernel whether the holder lives ({@link SlotLocks#isAlive}), and take a dead holder's
 * word over by compare-and-set. What a takeover must repair, and the counting, stay with the guard.
 *
 * <p>Stateless and thread-safe. Mutual exclusion comes from the compare-and-set alone: a waiter only ever
 * replaces 0, or an owner word the kernel says is dead, with its own.
 */
final class GuardWait
{
    /** {@link #acquire}'s answer when the guard was found free and taken. */
    static final long TAKEN_FREE = 0;
    /** {@link #acquire}'s answer when a live owner kept the guard for the whole timeout. */
    static final long TIMED_OUT = -1;

    private static final long LIVENESS_CHECK_NANOS = 1_000_000L;
    private static final int SPINS = 100;
    private static final int YIELDS = 50;

    private GuardWait()
    {
    }

    /**
     * @param buffer       the memory holding the guard word.
     * @param offset       the guard word's offset in it.
     * @param owner        the waiter's owner word.
     * @param locks        the table's lock file, which says whether a holder lives.
     * @param timeoutNanos how long to wait for a live holder.
     * @return {@link #TAKEN_FREE}; the dead holder's owner word when it was taken over (owner words are
     * positive: the slot byte is at most {@link FileHeader#MAX_PROCESSES}); or {@link #TIMED_OUT}.
     */
    static long acquire(final AtomicBuffer buffer, final int offset, final long owner, final SlotLocks locks,
        final long timeoutNanos)
    {
        return wait(buffer, offset, owner, locks, timeoutNanos);
    }

    /**
     * Waits, without taking it, until a word no longer names {@code holder}: it changed, or the kernel says the
     * holder is dead (the word is left as it is).
     *
     * @param buffer       the memory holding the word.
     * @param offset       the word's offset in it.
     * @param holder       the owner word it holds now.
     * @param locks        the table's lock file, which says whether a holder lives.
     * @param timeoutNanos how long to wait for a live holder.
     * @return false when a live holder kept it for the whole timeout.
     */
    static boolean awaitReleased(final AtomicBuffer buffer, final int offset, final long holder,
        final SlotLocks locks, final long timeoutNanos)
    {
        return wait(buffer, offset, -holder, locks, timeoutNanos) != TIMED_OUT;
    }

    /** @param owner the waiter's owner word, which takes the guard; negated: wait for the holder to leave only. */
    private static long wait(final AtomicBuffer buffer, final int offset, final long owner, final SlotLocks locks,
        final long timeoutNanos)
    {
        // The caller's interrupt status is set aside for the wait and given back, as is one that arrives during it:
        // parkNanos returns at once while it is set, and an interrupted waiter spun on its core for the whole
        // timeout, beside the process whose guard it waited for (found by review).
        boolean interrupted = Thread.interrupted();
        final boolean takes = owner > 0;
        try
        {
            final long start = System.nanoTime();
            long nextLivenessCheck = start + LIVENESS_CHECK_NANOS / 10;
            int spins = 0;
            while (true)
            {
                final long holder = buffer.getLongVolatile(offset);
                if (takes ? holder == 0 && buffer.compareAndSetLong(offset, 0, owner) : holder != -owner)
                {
                    return TAKEN_FREE;
                }
                final long now = System.nanoTime();
                if (holder != 0 && holder != owner && now - nextLivenessCheck >= 0)
                {
                    nextLivenessCheck = now + LIVENESS_CHECK_NANOS;
                    if (!locks.isAlive(holder) && (!takes || buffer.compareAndSetLong(offset, holder, owner)))
                    {
                        return takes ? holder : TAKEN_FREE;
                    }
                }
                if (now - start >= timeoutNanos)
                {
                    return TIMED_OUT;
                }
                if (++spins < SPINS)
                {
                    Thread.onSpinWait();
                }
                else if (spins < SPINS + YIELDS)
                {
                    // on a host with more runnable threads than cores the holder is most often runnable but
                    // descheduled: a yield hands it the CPU now, where a park waits out the timer slack (50 us or more)
                    Thread.yield();
                }
                else
                {
                    // held this long, by a slow or stopped process: back off, from 20 us to 1 ms, so waiters do not
                    // take the CPU its holder needs to finish
                    LockSupport.parkNanos(Math.min(1_000_000L, 20_000L << Math.min(6, (spins - SPINS - YIELDS) / 16)));
                    interrupted |= Thread.interrupted();
                }
            }
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
