package dev.floodgate.testkit;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * The token bucket's upper bound on what one quota (identifier, action) admits across policy changes, judged from
 * admissions stamped by their callers: each call's start (before the bucket reads its clock) and end (after its
 * compare-and-set), on the host's monotonic clock, which the bucket reads too.
 *
 * <p>The semantics it derives from (README, NOTES "A bucket across a change"): a bucket holds a debt D in tokens,
 * 0 to its capacity C (the limit), draining at C per window; a check of cost c is admitted while D + c <= C. A
 * policy change converts the word at the first check that sees it, carrying the same debt in the new units (rounded
 * up) capped at the new capacity: the tokens available rise by C' - C when the capacity rises and never rise
 * otherwise; until then the bucket refills at its old rate. A reaped bucket was full, and comes back full in the
 * regime in force. So every admission whose call lies inside [x, y] satisfies
 * <pre>
 *   admitted(x, y) <= C(k) + upward variation of C over the bucket regimes k..L(y) + integral over [x, y] of r^(t)
 * </pre>
 * where k is the first bucket regime at or after kmin(x), the oldest regime the entry's units can be in at x, L(t)
 * the newest regime whose publish began by t, and r^(t) the largest rate of the bucket regimes in [kmin(t), L(t)].
 * kmin advances to regime j at the end of an admission that began after publish j returned (its check saw a
 * generation at least j, and converted the entry to it) unless a regime that switches the action off, whose checks
 * admit without touching the entry, lies between j and L(end). Intervals whose regimes include such an off regime are
 * not judged. A limit the bucket cannot represent (window-only: its checks throw) is never the entry's units.
 */
public final class BucketBound
{
    /** How long after a publish returns a check that begins is taken to see it (cross-process store visibility). */
    private static final long VISIBLE_NANOS = 1_000_000L;

    /** One regime of the quota's action: limit per window (0: off), and when its publish began and returned. */
    public record Regime(long limit, long windowMs, long beganNanos, long returnedNanos)
    {
        boolean off()
        {
            return limit == 0;
        }

        boolean bucket()
        {
            final long windowNanos = windowMs * 1_000_000L;
            return limit > 0 && limit < (1L << 34) && limit / gcd(limit, windowNanos) <= 1024;
        }

        double rate()
        {
            return (double) limit / (windowMs * 1_000_000.0);
        }

        private static long gcd(final long a, final long b)
        {
            return b == 0 ? a : gcd(b, a % b);
        }
    }

    /**
     * What the judgement found: intervals judged, starts whose later intervals meet an off regime (not judged), the
     * tightest slack (bound minus admitted), and the interval furthest over the bound, if any.
     */
    public record Verdict(long admitted, long intervals, long skipped, double minSlack, String worst)
    {
        public boolean exceeded()
        {
            return worst != null;
        }
    }

    private final List<Regime> regimes;
    private final double heldBefore;
    private final int[] offsBefore;
    private final int[] firstBucket; // the first bucket regime at or after j (size: none)
    private final long[] rises; // the upward variation of C over the bucket regimes up to j

    /** @param regimes the action's regimes in publish order, the first the initial one. */
    public BucketBound(final List<Regime> regimes)
    {
        this(regimes, 0);
    }

    /**
     * @param regimes    the action's regimes in publish order, the first the initial one.
     * @param heldBefore tokens every interval's bound adds: what callers may hold from before it began (a cluster
     *                   quota's leases, leased and not yet spent).
     */
    public BucketBound(final List<Regime> regimes, final double heldBefore)
    {
        this.regimes = regimes;
        this.heldBefore = heldBefore;
        this.offsBefore = new int[regimes.size() + 1];
        for (int j = 0; j < regimes.size(); j++)
        {
            offsBefore[j + 1] = offsBefore[j] + (regimes.get(j).off() ? 1 : 0);
        }
        this.firstBucket = new int[regimes.size() + 1];
        firstBucket[regimes.size()] = regimes.size();
        for (int j = regimes.size() - 1; j >= 0; j--)
        {
            firstBucket[j] = regimes.get(j).bucket() ? j : firstBucket[j + 1];
        }
        this.rises = new long[regimes.size()];
        long previous = -1;
        for (int j = 0; j < regimes.size(); j++)
        {
            final Regime regime = regimes.get(j);
            rises[j] = (j == 0 ? 0 : rises[j - 1]) +
                (regime.bucket() && previous >= 0 ? Math.max(0, regime.limit() - previous) : 0);
            previous = regime.bucket() ? regime.limit() : previous;
        }
    }

    /** Publishes are sequential, so their beginnings ascend. */
    private int newestBegun(final long t)
    {
        int low = 1;
        int high = regimes.size() - 1;
        while (low <= high)
        {
            final int mid = (low + high) >>> 1;
            if (regimes.get(mid).beganNanos() <= t)
            {
                low = mid + 1;
            }
            else
            {
                high = mid - 1;
            }
        }
        return high < 1 ? 0 : high;
    }

    private boolean offBetween(final int from, final int to)
    {
        return offsBefore[to + 1] - offsBefore[from] > 0;
    }

    /**
     * @param callsIn every admission of the quota, and the calls killed in flight.
     * @return the verdict.
     */
    public Verdict judge(final List<SoakCall> callsIn)
    {
        final List<SoakCall> calls = new ArrayList<>(callsIn);
        calls.sort(Comparator.comparingLong(SoakCall::start));
        // kmin's steps: (time, regime) at the end of each admission that saw a newer regime
        final List<long[]> steps = new ArrayList<>();
        for (final SoakCall call : calls)
        {
            if (!call.happened())
            {
                continue;
            }
            int seen = 0;
            for (int j = 1; j < regimes.size(); j++)
            {
                if (regimes.get(j).returnedNanos() + VISIBLE_NANOS <= call.start())
                {
                    seen = j;
                }
            }
            if (seen > 0 && !offBetween(seen, newestBegun(call.end())))
            {
                steps.add(new long[] {call.end(), seen});
            }
        }
        steps.sort(Comparator.comparingLong(s -> s[0]));
        // breakpoints of r^: every publish's beginning and every kmin step
        final List<Long> times = new ArrayList<>();
        for (int j = 1; j < regimes.size(); j++)
        {
            times.add(regimes.get(j).beganNanos());
        }
        steps.forEach(s -> times.add(s[0]));
        long base = Long.MAX_VALUE;
        for (final SoakCall call : calls)
        {
            base = Math.min(base, call.start());
        }
        for (final long t : times)
        {
            base = Math.min(base, t);
        }
        times.add(base - 1); // the origin of the integral: before every call and publish
        final long[] at = times.stream().mapToLong(Long::longValue).sorted().distinct().toArray();
        final int[] kmin = new int[at.length];
        final double[] rate = new double[at.length];
        final double[] integral = new double[at.length]; // of r^ from at[0] to at[i]
        int step = 0;
        int floor = 0;
        for (int i = 0; i < at.length; i++)
        {
            while (step < steps.size() && steps.get(step)[0] <= at[i])
            {
                floor = Math.max(floor, (int) steps.get(step++)[1]);
            }
            kmin[i] = floor;
            double r = 0;
            for (int j = floor; j <= newestBegun(at[i]); j++)
            {
                r = regimes.get(j).bucket() ? Math.max(r, regimes.get(j).rate()) : r;
            }
            rate[i] = r;
            if (i >= 1)
            {
                integral[i] = integral[i - 1] + rate[i - 1] * (double) (at[i] - at[i - 1]);
            }
        }
        long admitted = 0;
        for (final SoakCall call : calls)
        {
            admitted += call.happened() ? call.cost() : 0;
        }
        long intervals = 0;
        long skipped = 0;
        double minSlack = Double.MAX_VALUE;
        String worst = null;
        double worstExcess = 0;
        final SoakCall[] byEnd = calls.toArray(new SoakCall[0]);
        Arrays.sort(byEnd, Comparator.comparingLong(SoakCall::end));
        final long[] ends = Arrays.stream(byEnd).mapToLong(SoakCall::end).toArray();
        for (int i = 0; i < calls.size(); i++)
        {
            final long x = calls.get(i).start();
            final int from = kmin[segment(at, x)];
            int first = Arrays.binarySearch(ends, x);
            first = first >= 0 ? first : -first - 1;
            while (first > 0 && ends[first - 1] >= x)
            {
                first--;
            }
            long sum = 0;
            for (int k = first; k < byEnd.length; k++)
            {
                final SoakCall call = byEnd[k];
                if (call.start() < x || !call.happened())
                {
                    continue; // a killed child's call in flight may have been refused: it proves no excess
                }
                sum += call.cost();
                final long y = call.end();
                final int newest = newestBegun(y);
                if (offBetween(from, newest))
                {
                    skipped++; // and every later end: the regimes only grow
                    break;
                }
                intervals++;
                final double bound = heldBefore + capacity(from, newest) + integral(at, rate, integral, y) -
                    integral(at, rate, integral, x);
                final double slack = bound - sum;
                minSlack = Math.min(minSlack, slack);
                if (slack < -1e-6 && -slack > worstExcess)
                {
                    worstExcess = -slack;
                    worst = String.format("%d admitted in [%d, %d] (%.1f ms), bound %.3f (regimes %d..%d)", sum, x, y,
                        (y - x) / 1e6, bound, from, newest);
                }
            }
        }
        return new Verdict(admitted, intervals, skipped, minSlack, worst);
    }

    /** C of the first bucket regime at or after {@code from} plus the upward variation of C up to {@code to}. */
    private double capacity(final int from, final int to)
    {
        final int first = firstBucket[from];
        return first > to ? 0 : regimes.get(first).limit() + rises[to] - rises[first];
    }

    private static int segment(final long[] at, final long t)
    {
        final int found = Arrays.binarySearch(at, t);
        return found >= 0 ? found : -found - 2;
    }

    private static double integral(final long[] at, final double[] rate, final double[] integral, final long t)
    {
        final int i = segment(at, t);
        return integral[i] + rate[i] * (double) (t - at[i]);
    }
}
