package dev.floodgate;

import java.util.Objects;

/**
 * One quota of a multi-quota charge ({@link Floodgate#charge}): who, what, which door and how many tokens.
 *
 * @param identifier who; not empty.
 * @param action     what.
 * @param bucket     true for the token bucket ({@link Floodgate#checkLimit}), false for the sharded window
 *                   ({@link Floodgate#checkLimitInCaller}).
 * @param cost       tokens, at least 1.
 */
public record Charge(CharSequence identifier, Action action, boolean bucket, long cost)
{
    /** Validates eagerly, so a bad charge fails where it is built. */
    public Charge
    {
        requireIdentifier(identifier);
        Objects.requireNonNull(action, "action");
        requireCost(cost);
    }

    /** @return a charge on the token bucket. */
    public static Charge bucket(final CharSequence identifier, final Action action, final long cost)
    {
        return new Charge(identifier, action, true, cost);
    }

    /** @return a charge on the sharded window. */
    public static Charge window(final CharSequence identifier, final Action action, final long cost)
    {
        return new Charge(identifier, action, false, cost);
    }

    /**
     * @param identifier who.
     * @throws NullPointerException     when it is null.
     * @throws IllegalArgumentException when it is empty.
     */
    static void requireIdentifier(final CharSequence identifier)
    {
        Objects.requireNonNull(identifier, "identifier");
        if (identifier.length() == 0)
        {
            throw new IllegalArgumentException("identifier is empty: expected at least one character");
        }
    }

    /**
     * @param cost a charge's cost.
     * @throws IllegalArgumentException naming the value when it is below 1.
     */
    static void requireCost(final long cost)
    {
        if (cost < 1)
        {
            throw new IllegalArgumentException("cost=" + cost + ": expected at least 1");
        }
    }
}
