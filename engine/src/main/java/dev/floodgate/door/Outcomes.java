package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.store.CounterRegion;

/**
 * The counting half of the doors' check prelude: a claim's outcome into this process's check counters, a refusal
 * into its {@linkplain BlockedCounter blocked counter} (or, in shadow mode, admitted and counted as shadowed), and
 * an unreachable entry answered by the operator's rule ({@link Doors#unavailableResult}). Written once for the
 * bucket door, the window door and each quota of a charge. Nothing is ever admitted here without being counted as
 * admitted.
 *
 * <p>A final class of static methods over {@link Doors}, as {@link BucketDoor} is: every call on the warm path
 * binds statically and the counters are one load from the doors, so taking it out of {@code Doors} added no load
 * and no virtual call. Stateless; thread-safe as the counters are.
 */
final class Outcomes
{
    private Outcomes()
    {
    }

    /** Counts a claim's outcome: admitted, or a refusal recorded as {@link #refusal} says. */
    static long outcome(final Doors doors, final CharSequence identifier, final int hash, final Action action,
        final ActionRule rule, final long result, final long nowNanos)
    {
        if (result == CheckResult.ADMITTED)
        {
            doors.counters.increment(action.ordinal(), CounterRegion.ADMITTED);
            return CheckResult.ADMITTED;
        }
        return refused(doors, identifier, hash, action, rule, result, nowNanos);
    }

    /** A cost above the whole limit: it can never succeed, so it is refused (or, in shadow mode, admitted). */
    static long never(final Doors doors, final CharSequence identifier, final int hash, final Action action,
        final ActionRule rule)
    {
        return refused(doors, identifier, hash, action, rule, CheckResult.NEVER, doors.ticker.nanos());
    }

    /**
     * Records a refusal in the (identifier, action) {@linkplain BlockedCounter blocked counter}, and a
     * {@link CheckResult#NEVER} in its own check counter. The caller counts it as refused unless this says the
     * action is in shadow mode.
     *
     * @return true, counted as shadowed and admitted, when the rule's action is in shadow mode.
     */
    static boolean refusal(final Doors doors, final CharSequence identifier, final int hash, final Action action,
        final ActionRule rule, final long result, final long nowNanos)
    {
        blocked(doors, identifier, hash, action, result, nowNanos);
        if (!rule.shadow)
        {
            return false;
        }
        final int a = action.ordinal();
        doors.counters.increment(a, CounterRegion.SHADOWED);
        doors.counters.increment(a, CounterRegion.ADMITTED);
        return true;
    }

    /**
     * A refusal's records without the shadow mode's say: the blocked counter, and a {@link CheckResult#NEVER} in
     * its check counter. For a quota of a charge another quota refused: refused with the whole, shadow or not.
     */
    static void blocked(final Doors doors, final CharSequence identifier, final int hash, final Action action,
        final long result, final long nowNanos)
    {
        BlockedCounter.add(doors, identifier, hash, action, nowNanos);
        if (result == CheckResult.NEVER)
        {
            doors.counters.increment(action.ordinal(), CounterRegion.NEVER);
        }
    }

    /**
     * The table could not give this check its entry in time (a live process held the segment, or the table is
     * full): the operator's rule for the action answers, and the answer is counted as what it is.
     */
    static long unavailable(final Doors doors, final Action action)
    {
        final long result = doors.unavailableResult(action);
        doors.counters.increment(action.ordinal(), result == CheckResult.ADMITTED ? CounterRegion.ADMITTED :
            CounterRegion.REFUSED);
        return result;
    }

    private static long refused(final Doors doors, final CharSequence identifier, final int hash,
        final Action action, final ActionRule rule, final long result, final long nowNanos)
    {
        if (refusal(doors, identifier, hash, action, rule, result, nowNanos))
        {
            return CheckResult.ADMITTED;
        }
        doors.counters.increment(action.ordinal(), CounterRegion.REFUSED);
        return result;
    }
}
