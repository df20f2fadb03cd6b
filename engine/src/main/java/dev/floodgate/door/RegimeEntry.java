package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Ticker;
import dev.floodgate.store.PolicyRegion;
import dev.floodgate.store.QuotaTable;

/**
 * Records, before a process first counts in a window regime, that a check entered it, so no publisher can then
 * replace the regime as still pending (why: {@link PolicyPlanner}).
 *
 * <p>Once per process and policy snapshot per action with a window regime that came into force by the check's
 * clock: take the policy guard (a check's usual 50 ms bound), raise the file's entered word to the regime's base,
 * release. The check's claim then runs and is validated against the policy generation as always. Every later
 * window check of that snapshot reads one volatile field ({@link ActionRule#entered}; a plain load on x86). When
 * the guard stays held (a publisher stopped mid-publish), the check answers as for an entry it cannot reach, and no
 * thread of the process waits on the guard for that action and snapshot again for the next 50 ms. Thread-safe: two
 * threads may both enter; the second changes nothing.
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
     * @param nowMs  the check's clock.
     * @return true when the check may count in the regime its clock falls in; false when the policy guard could
     * not be taken (answer as for an unreachable entry).
     */
    boolean enter(final Action action, final ActionRule rule, final long nowMs)
    {
        if (rule.entered || nowMs < rule.current.epochMs())
        {
            return true; // the previous regime is never replaced, so a check in it needs no record
        }
        final long now = ticker.nanos();
        if (rule.enterFailedAt != 0 && now - rule.enterFailedAt < QuotaTable.CHECK_TIMEOUT_NANOS)
        {
            return false;
        }
        if (!table.acquirePolicyGuard(QuotaTable.CHECK_TIMEOUT_NANOS))
        {
            rule.enterFailedAt = now | 1; // never 0
            return false;
        }
        try
        {
            policy.enterUnderGuard(action.ordinal(), rule.current.base());
        }
        finally
        {
            table.releasePolicyGuard();
        }
        rule.entered = true;
        return true;
    }
}
