package dev.floodgate.cluster;

/**
 * One action's cluster-wide quota: {@code limit} tokens per {@code windowMs}, as a token bucket of capacity
 * {@code limit} refilling continuously. Immutable.
 *
 * <p>The Lua script counts in credits (a millisecond adds {@code limit}, a token costs {@code windowMs}, capacity
 * {@code limit * windowMs}) and Lua numbers are doubles, exact for integers up to 2^53 only: hence
 * {@link #MAX_CREDITS}. No Lettuce type here: the configuration validates with this class.
 *
 * @param limit    tokens per window, at least 1.
 * @param windowMs the window in milliseconds, at least 1.
 */
public record ClusterLimit(long limit, long windowMs)
{
    /** The largest {@code limit * windowMs} the script counts exactly: 2^53. */
    public static final long MAX_CREDITS = 1L << 53;

    /**
     * @throws IllegalArgumentException if the limit or the window is below 1 or their product above
     *                                  {@link #MAX_CREDITS}.
     */
    public ClusterLimit
    {
        if (!fits(limit, windowMs))
        {
            throw new IllegalArgumentException("cluster limit " + limit + " per " + windowMs + " ms: expected a limit "
                + "and a window of at least 1 whose product is at most 2^53 (" + MAX_CREDITS + ")");
        }
    }

    /**
     * @param limit    tokens per window.
     * @param windowMs the window in milliseconds.
     * @return whether the script can keep that quota exactly.
     */
    public static boolean fits(final long limit, final long windowMs)
    {
        return limit >= 1 && windowMs >= 1 && limit <= MAX_CREDITS / windowMs;
    }

    /** @return the bucket's capacity in credits, {@code limit * windowMs}. */
    public long capacityCredits()
    {
        return limit * windowMs;
    }
}
