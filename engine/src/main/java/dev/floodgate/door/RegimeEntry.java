package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Ticker;
import dev.floodgate.store.PolicyRegion;
import dev.floodgate.store.QuotaTable;

/**
 * Announces, before a process first counts in a window of its current regime, the window's number in the file, so
 * no publisher can then start a new regime at or before that window (why: {@link PolicyPlanner}).
 *
 * <p>Once per process, policy snapshot, action and window: raise the file's entered word to the window's number
 * ({@link PolicyRegion#announceVolatile}, a compare-and-set), then read the policy guard. A publisher takes the guard,
 * then reads the word. So either the publisher reads the number and starts its regime after that window, or this
 * check reads the guard held: it then waits for the guard (a check's usual 50 ms bound), after which a publish that
 * missed the number has flipped the generation, and the check's claim fails its validation and is checked again
 * under the new policy. No check takes the guard unless a publish (or an opening JVM adopting the policy) holds it,
 * so a check paused here holds nothing. Every later window check of that window reads one volatile field
 * ({@link ActionRule#announced}). When the guard stays held (a publisher stopped mid-publish), the check answers as
 * for an entry it cannot reach, and no thread of the process waits on the guard for that action and snapshot again
 * for the next 50 ms. Thread-safe: two threads may both announce; the second changes nothing.
 */
final class RegimeEntry
{
    private final QuotaTable table;
    private final PolicyRegion policy;
    private final Ticker ticker;

    RegimeEntry(final QuotaTable table, final PolicyRegion policy, final Ticker ticker)
    {
        this.table = table;
        this.policy = policy;
        this.ticker = ticker;
    }

    /**
     * @param action the action.
     * @param rule   the action's rule in the check's snapshot.
     * @param cursor the window the check's clock falls in, under {@code rule}.
     * @return true when the check may count in that window; false when a publish held the policy guard past the
     * check's bound (answer as for an unreachable entry).
     */
    boolean enter(final Action action, final ActionRule rule, final ActionRule.WindowCursor cursor)
    {
        final long number = cursor.number();
        if (number <= rule.announced || !rule.announces(cursor.regime()))
        {
            return true; // announced already; or the previous regime, which no publish replaces
        }
        final long now = ticker.nanos();
        if (rule.enterFailedAt != 0 && now - rule.enterFailedAt < QuotaTable.CHECK_TIMEOUT_NANOS)
        {
            return false;
        }
        policy.announceVolatile(action.ordinal(), number);
        if (table.guard().policyOwnerVolatile() != 0)
        {
            // a publisher may have read the word before the number landed: let it finish (or take over a dead one)
            if (!table.acquirePolicyGuard(QuotaTable.CHECK_TIMEOUT_NANOS))
            {
                rule.enterFailedAt = now | 1; // never 0
                return false;
            }
            table.releasePolicyGuard();
        }
        if (rule.announced < number)
        {
            rule.announced = number; // a racing thread may store a lower one: it only announces again
        }
        return true;
    }
}
