package dev.floodgate.door;

import dev.floodgate.Ticker;
import dev.floodgate.store.BucketWords;
import dev.floodgate.store.Entry;

/**
 * A bucket claim its caller may give back: a multi-quota charge whose later quota refuses ({@link Charges}), or a
 * clustered check the cluster refuses ({@link BucketDoor}). The claim is {@link TokenBucket#tryAcquire}'s, answered
 * by where its debt starts, and the give-back returns only the part of that debt still ahead of the clock.
 *
 * <p>Why only that part: what elapsed since the claim was refilled while the claim held it. Given back too, it came
 * on top of what had refilled, and a check claiming on top meanwhile left the bucket holding more than its capacity
 * at one instant (found by review: capacity 10, a charge of 10 given back 500 ms after its claim, 5 claimed between:
 * 15 admitted at once). With intervening claims of total cost C, the word after the give-back is never below what
 * it would be had the claim never been made, so a give-back can only under-admit. Stateless; thread-safe.
 */
final class BucketGiveBack
{
    /** Returned by {@link #claimStart} when it claimed nothing; {@link #refusal} then says why. */
    static final long NOT_CLAIMED = Long.MIN_VALUE;

    private static final long NANOS_PER_MS = 1_000_000L;

    private BucketGiveBack()
    {
    }

    /**
     * {@link TokenBucket#tryAcquire}'s claim, answered by where the claim's debt starts (the word it wrote, less
     * {@code cost T}). A start that would equal {@link #NOT_CLAIMED} is answered one unit earlier (a give-back then
     * returns one unit, a fraction of a nanosecond's debt, less).
     *
     * @return the start, or {@link #NOT_CLAIMED} when nothing was claimed (refused, or the generation changed).
     */
    static long claimStart(final TokenBucket bucket, final Entry entry, final Ticker clock, final long cost,
        final long generation)
    {
        if (cost > bucket.limit)
        {
            return NOT_CLAIMED; // refusal answers NEVER
        }
        final long increment = cost * bucket.interval;
        final long threshold = bucket.span - increment;
        while (true)
        {
            final long tat = BucketWords.tatVolatile(entry);
            final long now = clock.nanos() * bucket.scale; // before the generation test, as tryAcquire reads it
            if (!entry.isCurrentAcquire(generation) || tat == TokenBucket.FROZEN)
            {
                return NOT_CLAIMED;
            }
            final long debt = bucket.debt(tat, now);
            if (debt > threshold)
            {
                return NOT_CLAIMED;
            }
            if (BucketWords.casTat(entry, tat, TokenBucket.notFrozen(now + debt + increment)))
            {
                final long start = now + debt;
                return start == NOT_CLAIMED ? start - 1 : start;
            }
        }
    }

    /**
     * Why {@link #claimStart} claimed nothing, read without writing: {@link TokenBucket#STALE}, the milliseconds until
     * {@code cost} tokens are available, or {@link CheckResult#ADMITTED} when they are now (they refilled since:
     * claim again).
     */
    static long refusal(final TokenBucket bucket, final Entry entry, final Ticker clock, final long cost,
        final long generation)
    {
        final long tat = BucketWords.tatVolatile(entry);
        if (!entry.isCurrentAcquire(generation) || tat == TokenBucket.FROZEN)
        {
            return TokenBucket.STALE;
        }
        if (cost > bucket.limit)
        {
            return CheckResult.NEVER; // the entry's units are newer than the caller's rule, and smaller
        }
        final long threshold = bucket.span - cost * bucket.interval;
        final long debt = bucket.debt(tat, clock.nanos() * bucket.scale);
        return debt > threshold ? Math.max(1, TokenBucket.ceilDiv(TokenBucket.ceilDiv(debt - threshold, bucket.scale),
            NANOS_PER_MS)) : CheckResult.ADMITTED;
    }

    /**
     * Gives back {@code cost} tokens a {@link #claimStart} took: the part of its debt still ahead of the clock, never
     * leaving the bucket fuller than full, and only while the generation (so the units) is unchanged.
     *
     * <p>The clock is read after the TAT word on every attempt, as {@link TokenBucket#tryAcquire} reads it: the bound
     * above needs a "now" no earlier than any claim the word holds. Read once before the loop, a thread descheduled
     * after that read gave back what refilled meanwhile on top of a check's claim (capacity 10: 5 + 10 admitted within
     * 500 ms; found by review, {@code ChargeGiveBackClockTest}).
     *
     * @param clock      monotonic time.
     * @param cost       tokens claimed.
     * @param generation the generation of the claim.
     * @param start      where the claim's debt started ({@link #claimStart}).
     * @return true when nothing of the claim is owed any more (given back, or elapsed); false when the entry's
     * generation moved (a conversion carried the claim into new units as debt, or the entry was reclaimed) or a
     * conversion holds the word: the claim stays counted with the entry (refuses more, never admits more).
     */
    static boolean giveBack(final TokenBucket bucket, final Entry entry, final Ticker clock, final long cost,
        final long generation, final long start)
    {
        final long span = bucket.span;
        while (true)
        {
            final long tat = BucketWords.tatVolatile(entry);
            final long now = clock.nanos() * bucket.scale; // after the word, before the generation test
            final long ahead = start + cost * bucket.interval - now; // the claim's debt not yet elapsed
            if (ahead <= 0 || ahead > span + span)
            {
                return true; // elapsed whole: nothing of it is owed any more (or a clock from before the claim)
            }
            if (!entry.isCurrentAcquire(generation) || tat == TokenBucket.FROZEN)
            {
                return false;
            }
            final long amount = Math.min(ahead, cost * bucket.interval);
            final long raw = tat - now;
            if (raw <= 0 || raw > span + span)
            {
                return true; // already full
            }
            final long next = raw > amount ? tat - amount : now;
            if (BucketWords.casTat(entry, tat, TokenBucket.notFrozen(next)))
            {
                return true;
            }
        }
    }
}
