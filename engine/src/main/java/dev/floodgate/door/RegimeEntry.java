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
 * ({@link PolicyRegion#announceVolatile}, a compare-and-set), then read the action's publishing word. A publisher
 * changing the action's limit or window marks it there, then reads the entered word. So either the publisher reads
 * the number and starts its regime after that window, or this check reads the mark: it then waits for the publisher
 * to clear it (a check's usual 50 ms bound; a dead publisher is told by the kernel), after which a publish that
 * missed the number has flipped the generation, and the check's claim fails its validation and is checked again
 * under the new policy. The check takes no lock, so a check paused here holds nothing up; a publisher stopped
 * mid-publish holds up the first check of each process in each new window of the actions it changes, and no other.
 * Every later window check of that window reads one volatile field ({@link ActionRule#announced}). When the mark
 * stays (a publisher stopped mid-publish), the check answers as for an entry it cannot reach, and no thread of the
 * process waits on it for that action and snapshot again for the next 50 ms. Thread-safe: two threads may both
 * announce; the second changes nothing.
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
     * @param generation the policy generation of the check's snapshot.
     * @return true when the check may count in that window; false when a publish of the action outlasted the
     * check's bound (answer as for an unreachable entry).
     */
    boolean enter(final Action action, final ActionRule rule, final ActionRule.WindowCursor cursor,
        final long generation)
    {
        final long number = cursor.number();
        if (number <= rule.announced || !rule.announces(cursor.regime()))
        {
            return true; // announced already; or the previous regime, which no publish replaces
        }
        if (policy.generationAcquire() != generation)
        {
            // a stale snapshot: its claim fails validation and is checked again under the new one. Its number would
            // be its clock read in an old regime's windows, and a thread stopped between its snapshot and its clock
            // read for 2^20 of them would announce a number of the regime now in force, far on when the new windows
            // are longer: the next publish's epoch that far into the future (found by review)
            return true;
        }
        final long now = ticker.nanos();
        if (rule.enterFailedAt != 0 && now - rule.enterFailedAt < QuotaTable.CHECK_TIMEOUT_NANOS)
        {
            return false;
        }
        policy.announceVolatile(action.ordinal(), number);
        final long publisher = policy.publishingVolatile(action.ordinal());
        // a publisher may have read the word before the number landed: let it flip first
        if (publisher != 0 && !policy.awaitPublished(action.ordinal(), publisher, table.locks(),
            QuotaTable.CHECK_TIMEOUT_NANOS))
        {
            table.guard().countTimeout();
            rule.enterFailedAt = ticker.nanos() | 1; // when the wait gave up, never 0 (it was the start: 50 ms old)
            return false;
        }
        if (rule.announced < number)
        {
            rule.announced = number; // a racing thread may store a lower one: it only announces again
        }
        return true;
    }
}
