package dev.floodgate.cluster;

/**
 * What a lease or a refund came to. Every call of {@link RedisLeases} ends in exactly one of these, never in an
 * exception: the caller acts on the {@link Outcome}. Immutable.
 *
 * @param outcome      what happened.
 * @param tokens       {@link Outcome#APPLIED} or {@link Outcome#REPLAYED}: the tokens granted (a lease, 0 up to what
 *                     was asked) or given back (a refund); otherwise 0.
 * @param waitMs       after a lease: the time until the bucket holds a whole token again, 0 while it does.
 * @param serverTimeMs the Redis server's clock when it ran the script (ms since the epoch); 0 if unavailable.
 * @param asked        the amount of the request the answer is for: the call's own, or on a {@link Outcome#REPLAYED}
 *                     lease the amount the sequence's applied request asked, which a retry may not have asked
 *                     (its grant is then short of or above the retry's amount, and says nothing about the
 *                     bucket's being drained unless it is short of this); 0 if unavailable.
 */
public record Lease(Outcome outcome, long tokens, long waitMs, long serverTimeMs, long asked)
{
    private static final Lease UNAVAILABLE = new Lease(Outcome.UNAVAILABLE, 0, 0, 0, 0);

    /** The four ends of a call. */
    public enum Outcome
    {
        /** The server applied this request now. */
        APPLIED,
        /**
         * The server had applied this sequence number already: its answer again, nothing taken twice. A lease
         * retried with another amount is answered so too, with the grant of the amount first asked
         * ({@link #asked()}): one grant per sequence number.
         */
        REPLAYED,
        /**
         * An older sequence number, a lease with a refund's, or a refund's with another amount: the server changed
         * nothing. (A refund with a lease's sequence number is applied: it gives that lease up, and the lease's grant
         * goes back to the bucket with the refund.)
         */
        STALE,
        /**
         * No answer within the bound: Redis down or unreachable, the client closed, the command rejected, timed out
         * or answered with something unexpected. The request may or may not have been applied: a retry with the
         * same sequence number finds out without taking anything twice.
         */
        UNAVAILABLE
    }

    /** @return the answer of a call that got none from the server. */
    public static Lease unavailable()
    {
        return UNAVAILABLE;
    }

    /** @return whether the server answered (applied, replayed or stale). */
    public boolean answered()
    {
        return outcome != Outcome.UNAVAILABLE;
    }
}
