package dev.floodgate.tools.cluster;

import dev.floodgate.ClusterStats;
import dev.floodgate.tools.format.Durations;
import dev.floodgate.tools.load.Exactness;
import io.lettuce.core.RedisException;

import java.io.PrintWriter;
import java.util.Map;

/**
 * What a cluster run of {@code demo} or {@code bench} is judged by. When the workers are released it reads the
 * Redis server's script-call count ({@code INFO commandstats}), and when the run's end time passes it reads it again;
 * each identifier's admissions are compared with the allowance of the cluster's bucket over the run, from its start
 * to its end (full at the start, plus its refill over the run's length, which the monotonic clock measures: reading
 * the server's clock at the end counted the time it took to get there, 18-37 tokens of refill in a 1 s run at 1,000 a
 * second, found by review): EXACT when equal, WITHIN when short by no more than the leases the nodes may hold unspent
 * (three leases and three quarters per node: see {@link #print}), WRONG when over the allowance or further
 * under, NOT_TESTED when the cluster refused no identifier and none attempted more than its allowance (the quota
 * never had to refuse, so nothing about it was shown). Round trips are the server's script calls over the run, beside
 * admitted / lease: they follow the tokens admitted, not the checks.
 */
public final class ClusterTally
{
    /** The outcome. */
    public enum Verdict
    {
        /** Every identifier admitted exactly its allowance. */
        EXACT,
        /** None over, some under by no more than the leases held unspent. */
        WITHIN,
        /** Over the allowance, or under by more than the lease bound. */
        WRONG,
        /** No identifier attempted more than its allowance: the quota never had to refuse. */
        NOT_TESTED
    }

    private final ClusterQuota quota;
    /** The run's length, in ms: the span the bucket refills over. */
    private final long runMs;
    private long startCalls = -1;
    private long calls = -1;

    private ClusterTally(final ClusterQuota quota, final long runMs)
    {
        this.quota = quota;
        this.runMs = runMs;
    }

    /**
     * @param quota      the run's cluster quota.
     * @param startNanos when the run starts, monotonic (the workers are released a little before).
     * @param endNanos   when it ends, monotonic.
     * @return a tally that has read the server's script calls now.
     */
    public static ClusterTally begin(final ClusterQuota quota, final long startNanos, final long endNanos)
    {
        final ClusterTally tally = new ClusterTally(quota, Math.round((endNanos - startNanos) / 1e6));
        try (ServerConnection server = ServerConnection.open(quota.uri()))
        {
            tally.startCalls = server.scriptCalls();
        }
        catch (final RedisException ex)
        {
            tally.startCalls = -1; // round trips not visible
        }
        return tally;
    }

    /** Reads the server's script calls at the run's end. */
    public void end()
    {
        if (startCalls >= 0)
        {
            try (ServerConnection server = ServerConnection.open(quota.uri()))
            {
                calls = server.scriptCalls() - startCalls;
            }
            catch (final RedisException ex)
            {
                calls = -1;
            }
        }
    }

    /**
     * @param out    where the lines go.
     * @param totals the workers' per-key totals ({@link Exactness#merge}); only the quota's action counts.
     * @param nodes  table files (nodes) that leased.
     * @param checks the nodes' checks as the cluster answered them over the run (their files' counters, summed):
     *               a refusal shows the quota only when the cluster refused something; a check refused for want
     *               of a lease (no lease within its 50 ms wait: a cold JVM on a loaded host, Redis slow or down)
     *               shows nothing about it.
     * @return the verdict, printed as the last line.
     */
    public Verdict print(final PrintWriter out, final Map<String, Exactness.KeyTotal> totals, final int nodes,
        final ClusterStats.Checks checks)
    {
        final long allowance = quota.allowance(runMs);
        // what a node may hold leased and unspent: three leases and a quarter for a moment, and half a lease more
        // while the cluster's bucket is drained (NOTES, "Lease size"); rounded up
        final long bound = (15L * nodes * quota.lease() + 3) / 4;
        long admitted = 0;
        long expected = 0;
        long shortBy = 0;
        int keys = 0;
        boolean over = false;
        boolean reached = false;
        for (final Exactness.KeyTotal total : totals.values())
        {
            if (total.action() != quota.action())
            {
                continue;
            }
            keys++;
            final long allowed = Math.min(allowance, total.attempts());
            admitted += total.admitted();
            expected += allowed;
            over |= total.admitted() > allowed;
            // a refusal by the cluster shows the quota as much as an attempt over the allowance (found by review: a
            // run whose cluster refused, short of the allowance by a node's unspent lease, was called not tested);
            // a fallback's does not (beside four CPU hogs a cold node's first lease missed its wait: 2 refusals of 4
            // million checks made a run whose quota was never reached WITHIN)
            reached |= checks.refused() > 0 && total.refused() > 0 || total.attempts() > allowance;
            shortBy = Math.max(shortBy, allowed - total.admitted());
        }
        out.printf("cluster  %,d per %s per identifier (%s), leased %,d at a time: over the run's %s the bucket " +
            "allows %,d each (%,d at the start, %,d refilled)%n", quota.limit(), Durations.nanos(quota.windowMs() *
            1_000_000L), quota.action().configPrefix(), quota.lease(), Durations.nanos(runMs * 1_000_000L),
            allowance, quota.limit(), allowance - quota.limit());
        if (calls >= 0)
        {
            final double quotient = admitted / (double)quota.lease();
            out.printf("round trips %,d script calls at Redis (every client of the server) for %,d admitted: " +
                "admitted / lease = %.1f, %.2f calls per lease; %.1f per node; %,.0f checks admitted per round trip%n",
                calls, admitted, quotient, quotient == 0 ? 0.0 : calls / quotient, calls / (double)nodes,
                calls == 0 ? 0.0 : admitted / (double)calls);
        }
        else
        {
            out.println("round trips not visible (the server did not answer INFO commandstats)");
        }
        if (checks.fallbacksRefused() > 0)
        {
            out.printf("fallback %,d checks refused for want of a lease (none within a check's 50 ms wait: a cold " +
                "JVM, Redis slow or unavailable); %,d refused by the cluster%n", checks.fallbacksRefused(),
                checks.refused());
        }
        final Verdict verdict = over || shortBy > bound ? Verdict.WRONG : !reached ? Verdict.NOT_TESTED :
            shortBy == 0 ? Verdict.EXACT : Verdict.WITHIN;
        switch (verdict)
        {
            case EXACT -> out.printf("EXACT: %d identifier%s, the cluster allowed %,d and %,d were admitted%n", keys,
                keys == 1 ? "" : "s", expected, admitted);
            case WITHIN -> out.printf("WITHIN: the cluster allowed %,d, %,d were admitted; short by at most %,d on " +
                "an identifier, within the %,d the %d node%s may hold leased and unspent%n", expected, admitted,
                shortBy, bound, nodes, nodes == 1 ? "" : "s");
            case NOT_TESTED -> out.printf("NOT TESTED: no identifier attempted more than the cluster allows (%,d " +
                "each), so the quota never had to refuse; %,d were admitted (lower the cluster limit)%n", allowance,
                admitted);
            default -> out.printf("WRONG: the cluster allowed %,d, %,d were admitted (%s)%n", expected, admitted,
                over ? "over the cluster quota" : "short by " + shortBy + " on an identifier, more than the " +
                    bound + " the nodes may hold leased");
        }
        return verdict;
    }
}
