package dev.floodgate.testkit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The cluster quota's bounds on what one (identifier, action) admits across every node, judged from admissions
 * stamped by their callers on the host's monotonic clock ({@link SoakCall}). A killed child's call in flight is
 * not counted: it may have been refused, and counted it made a false excess (2 tokens over the exact bound of an
 * always-busy quota once, in a whole-suite run).
 *
 * <p>Redis keeps a token bucket of capacity C refilling at C per window on its own clock, and the nodes spend what
 * it grants; a token is granted before it is spent. So from a moment the bucket was full and no node held a token
 * (the origin: a new Redis, before the first check), every prefix obeys the <b>exact bound</b>: admitted up to y
 * is at most C + C / window x (y - origin) in server time, less what the bucket provably lost: a Redis stopped
 * (SIGSTOP) for d runs no script, so no node got a token meanwhile and the bucket, at most full when it resumes,
 * lost at least C / window x d - C of its refill. This is the promise; a token created anywhere (a grant
 * committed twice, a refund of tokens also spent) breaks it once the refill the quota did not use is spent up.
 * Over an interval [x, y] that starts later, the nodes may also spend what they leased before x, so the
 * <b>interval bound</b> adds the leased and unspent tokens the notes allow ({@link BucketBound} with that much
 * held before): a token both given back and spent, or more held than the notes say, breaks it long before the
 * exact bound notices. Tighter, where the soak read what the nodes held ({@link LeaseSampler}): from a sample on, the
 * admissions may not exceed C, the refill since the sample began, the balances it read and the grants on their way
 * to them, but for tokens no sample can see (a spend carrying tokens between two balance words, a refund that
 * comes back stale); {@link #held} says how many the admissions imply at most.
 */
public final class ClusterBound
{
    /** Server ms that a call's stamp may lag the moment Redis read its clock: TIME's ms, and a margin. */
    private static final long CLOCK_MARGIN_MS = 2;
    /** How much of a Redis stop, as its parent timed it, is not taken for sure: the signals' delivery. */
    private static final long STOP_MARGIN_NANOS = 20_000_000L;

    /**
     * The verdict: the admissions, the exact bound's tightest slack, its slack at the last admission, the prefix
     * furthest over it (null when none), and the interval bound's verdict.
     */
    public record Verdict(long admitted, double minSlack, double endSlack, String worst, BucketBound.Verdict interval)
    {
        public boolean exceeded()
        {
            return worst != null;
        }
    }

    private ClusterBound()
    {
    }

    /**
     * @param limit         the cluster limit C.
     * @param windowMs      its window.
     * @param unspent       the interval bound's allowance: tokens the nodes may hold leased and unspent.
     * @param originNanos   a moment the bucket was full and no node held a token, before every call.
     * @param serverPerNano server time elapsed per ns of the host's monotonic clock over the run (about 1).
     * @param redisStops    when Redis was stopped: {after the SIGSTOP, before the SIGCONT}, in order.
     * @param calls         the admissions.
     */
    public static Verdict judge(final long limit, final long windowMs, final long unspent, final long originNanos,
        final double serverPerNano, final List<long[]> redisStops, final List<SoakCall> calls)
    {
        final List<SoakCall> byEnd = new ArrayList<>(calls);
        byEnd.sort(Comparator.comparingLong(SoakCall::end));
        final double perMs = (double)limit / windowMs;
        long admitted = 0;
        double minSlack = Double.MAX_VALUE;
        String worst = null;
        double worstExcess = 0;
        double slack = 0;
        for (final SoakCall call : byEnd)
        {
            if (!call.happened())
            {
                continue;
            }
            admitted += call.cost();
            final double bound = limit + perMs * (ms(serverPerNano, call.end() - originNanos) + CLOCK_MARGIN_MS) -
                lost(limit, perMs, serverPerNano, redisStops, call.end());
            slack = bound - admitted;
            minSlack = Math.min(minSlack, slack);
            if (slack < 0 && -slack > worstExcess)
            {
                worstExcess = -slack;
                worst = String.format("%d admitted by %.1f ms after the origin, bound %.3f", admitted,
                    (call.end() - originNanos) / 1e6, bound);
            }
        }
        final BucketBound.Verdict interval = new BucketBound(List.of(new BucketBound.Regime(limit, windowMs,
            Long.MIN_VALUE, Long.MIN_VALUE)), unspent).judge(calls);
        return new Verdict(admitted, minSlack, slack, worst, interval);
    }

    /** What {@link #held} found: the most tokens the admissions imply the samples did not see, and where. */
    public record Held(double unseen, String where)
    {
    }

    /**
     * @return the largest excess, over the samples that read Redis and the admissions after each, of what was
     * admitted from the sample's end to an admission's end over C, the refill since the sample's start, the balances
     * it read and the grants it found on their way.
     */
    public static Held held(final long limit, final long windowMs, final double serverPerNano,
        final List<LeaseSampler.Sample> samples, final int series, final List<SoakCall> calls)
    {
        final List<SoakCall> byEnd = new ArrayList<>(calls);
        byEnd.sort(Comparator.comparingLong(SoakCall::end));
        final long[] ends = byEnd.stream().mapToLong(SoakCall::end).toArray();
        final double perMs = (double)limit / windowMs;
        double unseen = Double.NEGATIVE_INFINITY;
        String where = "no sample";
        for (final LeaseSampler.Sample sample : samples)
        {
            if (sample.onTheirWay() == null)
            {
                continue; // Redis was stopped: the grants on their way were not read
            }
            final long held = sample.balances()[series] + sample.onTheirWay()[series];
            int first = java.util.Arrays.binarySearch(ends, sample.toNanos());
            first = first >= 0 ? first : -first - 1;
            while (first > 0 && ends[first - 1] >= sample.toNanos())
            {
                first--;
            }
            long sum = 0;
            for (int k = first; k < byEnd.size(); k++)
            {
                final SoakCall call = byEnd.get(k);
                if (call.start() < sample.toNanos() || !call.happened())
                {
                    continue; // it may have spent before the sample read the balances, or (killed) been refused
                }
                sum += call.cost();
                final double bound = limit + held +
                    perMs * (ms(serverPerNano, call.end() - sample.fromNanos()) + CLOCK_MARGIN_MS);
                if (sum - bound > unseen)
                {
                    unseen = sum - bound;
                    where = String.format("%d admitted in %.1f ms from a sample that read %d held and %d on their " +
                        "way", sum, (call.end() - sample.toNanos()) / 1e6, sample.balances()[series],
                        sample.onTheirWay()[series]);
                }
            }
        }
        return new Held(unseen, where);
    }

    /** @return the refill the bucket lost for sure by {@code t} to the Redis stops that began before it. */
    private static double lost(final long limit, final double perMs, final double serverPerNano,
        final List<long[]> redisStops, final long t)
    {
        double lost = 0;
        for (final long[] stop : redisStops)
        {
            final long from = stop[0] + STOP_MARGIN_NANOS;
            final long to = Math.min(t, stop[1] - STOP_MARGIN_NANOS);
            if (to - from > 0)
            {
                // rounded down where the server's clock ran slower; ended: the bucket resumed at most full; still
                // stopped: no grant since it began
                final double refill = perMs * Math.min(1.0, serverPerNano) * (to - from) / 1e6;
                lost += to == t ? refill : Math.max(0, refill - limit);
            }
        }
        return lost;
    }

    /** @return server ms for {@code nanos} of the host's clock, rounded up when the server's ran faster. */
    private static double ms(final double serverPerNano, final long nanos)
    {
        return Math.max(1.0, serverPerNano) * nanos / 1e6;
    }
}
