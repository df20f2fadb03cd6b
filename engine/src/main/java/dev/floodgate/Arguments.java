package dev.floodgate;

import java.util.List;
import java.util.Objects;

/** The facade's argument checks, with the messages a caller sees. Stateless. */
final class Arguments
{
    private Arguments()
    {
    }

    /**
     * A one-action check's: the identifier (its emptiness is found on the cold path), the action and the cost. The
     * action's test costs a warm check nothing: the door dereferences it anyway, and the JIT drops the second test.
     */
    static void requireCheck(final CharSequence identifier, final Action action, final long cost)
    {
        Objects.requireNonNull(identifier, "identifier");
        Objects.requireNonNull(action, "action");
        Charge.requireCost(cost);
    }

    /**
     * A charge's: at least one quota, none of an empty identifier (each was built valid, but its identifier is a
     * {@code CharSequence} the caller may have emptied since).
     */
    static void requireCharges(final List<Charge> charges)
    {
        Objects.requireNonNull(charges, "charges");
        if (charges.isEmpty())
        {
            throw new IllegalArgumentException("charges is empty: expected at least one");
        }
        for (final Charge charge : charges)
        {
            Charge.requireIdentifier(charge.identifier());
        }
    }

    /** An operator's look-up or reset of one (identifier, action). */
    static void requireKey(final CharSequence identifier, final Action action)
    {
        Charge.requireIdentifier(identifier);
        Objects.requireNonNull(action, "action");
    }

    /** A ranking's: the action and how many, at least 0. */
    static void requireTop(final Action action, final int n)
    {
        Objects.requireNonNull(action, "action");
        if (n < 0)
        {
            throw new IllegalArgumentException("n=" + n + ": expected 0 or more");
        }
    }
}
