package dev.floodgate.tools.load;

import dev.floodgate.Action;
import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.TableEntry;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks a load run against what the quotas allow. For every key, the workers' own counts must satisfy
 * {@code admitted <= min(limit, attempts)}: never more than the limit. And the table's blocked counter of
 * that key must not exceed the refusals the workers counted, so no refusal was counted twice between processes.
 *
 * <p>A check that could not reach its entry in time is refused (the engine's default unreachable rule) and
 * counted as unreachable instead of in a blocked counter; the refusals must add up across both. Only such a
 * refusal may leave a key short of its quota, so the keys' shortfalls ({@code min(limit, attempts) - admitted})
 * add up to at most the unreachable count: never a refusal while quota was left that nobody accounts for. This holds only
 * when no quota refills during the run: the window door's run must stay inside one window
 * and the bucket's emission interval (window / limit) must exceed the run. Callers arrange both.
 */
public final class Exactness
{
    private Exactness()
    {
    }

    /**
     * One key's totals over every worker.
     *
     * @param action     the action.
     * @param identifier the identifier.
     * @param admitted   admissions the workers counted.
     * @param refused    refusals the workers counted.
     */
    public record KeyTotal(Action action, String identifier, long admitted, long refused)
    {
        /** @return admissions plus refusals. */
        public long attempts()
        {
            return admitted + refused;
        }
    }

    /**
     * The outcome for one action.
     *
     * @param action   the action.
     * @param keys     keys checked.
     * @param limit    the per-key limit.
     * @param attempts attempts over every key.
     * @param admitted admissions over every key.
     * @param expected what the quotas allow over every key.
     * @param refused  refusals the workers counted.
     * @param blocked  refusals the table's blocked counters hold.
     * @param problems what is wrong, empty when exact.
     */
    public record Verdict(Action action, int keys, long limit, long attempts, long admitted, long expected,
        long refused, long blocked, List<String> problems)
    {
        /** @return true when every key admitted exactly what its quota allows and every refusal is counted. */
        public boolean exact()
        {
            return problems.isEmpty();
        }
    }

    /**
     * @param workers finished workers.
     * @return per "action identifier", the totals over every worker, sorted.
     */
    public static Map<String, KeyTotal> merge(final Collection<WorkerProcess> workers)
    {
        final Map<String, KeyTotal> totals = new TreeMap<>();
        for (final WorkerProcess worker : workers)
        {
            for (final Map.Entry<String, long[]> key : worker.keys().entrySet())
            {
                final String[] words = key.getKey().split(" ", 2);
                totals.merge(key.getKey(), new KeyTotal(Action.parse(words[0]), words[1], key.getValue()[0],
                    key.getValue()[1]), (a, b) -> new KeyTotal(a.action(), a.identifier(), a.admitted() + b.admitted(),
                    a.refused() + b.refused()));
            }
        }
        return totals;
    }

    /**
     * @param action  the action to judge.
     * @param limit   its per-key limit in the run's one window.
     * @param totals  from {@link #merge}.
     * @param entries the table's entries after the run.
     * @param degraded the table's degraded-check counter of {@code action} after the run.
     * @return the verdict.
     */
    public static Verdict check(final Action action, final long limit, final Map<String, KeyTotal> totals,
        final List<TableEntry> entries, final long degraded)
    {
        final Map<String, Long> blockedInFile = new TreeMap<>();
        for (final TableEntry entry : entries)
        {
            if (entry.kind() == EntryKind.BLOCKED && entry.action() == action && !entry.tombstoned())
            {
                blockedInFile.put(entry.label(), entry.blocked());
            }
        }
        final List<String> problems = new ArrayList<>();
        int keys = 0;
        long attempts = 0;
        long admitted = 0;
        long expected = 0;
        long refused = 0;
        long blocked = 0;
        long shortfall = 0;
        for (final KeyTotal total : totals.values())
        {
            if (total.action() != action)
            {
                continue;
            }
            keys++;
            final long allowed = Math.min(limit, total.attempts());
            final long inFile = blockedInFile.getOrDefault(total.identifier(), 0L);
            attempts += total.attempts();
            admitted += total.admitted();
            expected += allowed;
            refused += total.refused();
            blocked += inFile;
            shortfall += Math.max(0, allowed - total.admitted());
            if (total.admitted() > allowed)
            {
                problems.add(action.configPrefix() + " " + total.identifier() + ": admitted " + total.admitted() +
                    ", quota allows " + allowed);
            }
            if (inFile > total.refused())
            {
                problems.add(action.configPrefix() + " " + total.identifier() + ": workers refused " +
                    total.refused() + ", the table's blocked counter says " + inFile);
            }
        }
        // A check whose entry (or blocked counter) was unreachable in time (a process holding its segment was
        // descheduled past the check's wait) is refused without a blocked count, and counted once as
        // unreachable: every refusal is in exactly one of the two.
        if (refused != blocked + degraded)
        {
            problems.add(action.configPrefix() + ": workers refused " + refused + "; the table counts " + blocked +
                " in blocked counters and " + degraded + " unreachable");
        }
        if (shortfall > degraded)
        {
            problems.add(action.configPrefix() + ": keys admitted " + shortfall + " fewer than their quotas " +
                "allowed, but only " + degraded + " checks were unreachable");
        }
        return new Verdict(action, keys, limit, attempts, admitted, expected, refused, blocked, List.copyOf(problems));
    }
}
