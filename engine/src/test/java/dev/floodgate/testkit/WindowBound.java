package dev.floodgate.testkit;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The window door's bound on what one quota (identifier, action) admits across policy changes: no window admits more
 * than the limit of the regime it belongs to, judged from admissions stamped by their callers.
 *
 * <p>The timeline (README, NOTES "A window across a change", {@code PolicyPlanner}): each regime that came into force
 * numbers the monotonic milliseconds from its epoch on in windows of its length, until the next regime's epoch (the
 * last window cut there); the first block's regime numbers all time before that. A publish that replaced a pending
 * regime (the same epoch) replaces it here too: it never came into force. A limit of 0 is off: admitted uncounted.
 *
 * <p>Which window an admission counted in: its check reads the window door's clock (each JVM's coarse clock, which
 * never reads ahead of {@code System.nanoTime}, shared by every process of the host) no earlier than the call's start
 * stamp, which is that clock read just before the call; and a claim counts in the window its clock falls in or in a
 * newer one another process's clock already started, never later than the call's end. So each admission lies in one
 * of the windows from its start's to its end's. Except where the action was off: a check admits uncounted while its
 * snapshot says off at its clock, and the publish that ends an off regime takes effect when it flips the generation,
 * whether its regime starts at the publisher's clock reading (after an off regime in force: nothing was counted) or
 * replaces an off regime still pending, at its epoch (a check that admits uncounted announces nothing, so the
 * publisher cannot know that the checks' clocks reached that epoch). So a call that began before that publish
 * returned and ended at or after the off regime's epoch may have been admitted uncounted, and is not judged. The
 * admissions can fit the limits only if the windows can share them out so that none is over its limit; this splits a
 * weighted admission between windows, which makes it a relaxation: when even that fails (earliest deadline first,
 * exact for such intervals), some window admitted too much. A killed child's call in flight may have been refused, so
 * it is not judged.
 */
public final class WindowBound
{
    /**
     * One regime as a publish left it: limit per window (0: off), window, epoch (monotonic ms), first number, and when
     * that publish returned (monotonic ns; {@link Long#MIN_VALUE} for the first block's).
     */
    public record Regime(long limit, long windowMs, long epochMs, long base, long returnedNanos)
    {
    }

    /**
     * What the judgement found: admitted tokens, those maybe admitted uncounted (off; not judged), windows the calls
     * could land in, those the admissions filled to their limit, calls not known to have happened (not judged), and
     * the window furthest over its limit, if any.
     */
    public record Verdict(long admitted, long uncounted, long windows, long full, long unknown, String worst)
    {
        public boolean exceeded()
        {
            return worst != null;
        }
    }

    private final List<Regime> timeline = new ArrayList<>();
    private final List<long[]> offs = new ArrayList<>(); // {epoch ms, when the publish that ended it returned}
    private long[] offset; // per regime of the timeline: the ordinal of its first window the calls reach
    private long[] firstNumber;

    /** @param published the current regime after each publish, the first block's first (epoch 0, base 0). */
    public WindowBound(final List<Regime> published)
    {
        for (final Regime regime : published)
        {
            final Regime last = timeline.isEmpty() ? null : timeline.get(timeline.size() - 1);
            if (last != null && last.base() == regime.base())
            {
                continue; // neither limit nor window changed
            }
            if (last != null && last.limit() == 0)
            {
                offs.add(new long[] {last.epochMs(), regime.returnedNanos()});
            }
            if (last != null && timeline.size() > 1 && last.epochMs() == regime.epochMs())
            {
                timeline.set(timeline.size() - 1, regime); // a pending regime replaced
                continue;
            }
            timeline.add(regime);
        }
        final Regime last = timeline.get(timeline.size() - 1);
        if (last.limit() == 0)
        {
            offs.add(new long[] {last.epochMs(), Long.MAX_VALUE});
        }
    }

    private int regimeAt(final long ms)
    {
        int low = 1;
        int high = timeline.size() - 1;
        while (low <= high)
        {
            final int mid = (low + high) >>> 1;
            if (timeline.get(mid).epochMs() <= ms)
            {
                low = mid + 1;
            }
            else
            {
                high = mid - 1;
            }
        }
        return Math.max(0, high);
    }

    private long number(final int regime, final long ms)
    {
        final Regime r = timeline.get(regime);
        return Math.floorDiv(ms - r.epochMs(), r.windowMs());
    }

    private long ordinal(final long nanos)
    {
        final long ms = Math.floorDiv(nanos, 1_000_000L);
        final int regime = regimeAt(ms);
        return offset[regime] + number(regime, ms) - firstNumber[regime];
    }

    private int regimeOf(final long ordinal)
    {
        int found = 0;
        for (int i = 0; i < offset.length; i++)
        {
            found = offset[i] <= ordinal ? i : found;
        }
        return found;
    }

    /** @return whether the call may have been admitted uncounted, its check seeing the action off. */
    private boolean maybeOff(final SoakCall call)
    {
        for (final long[] off : offs)
        {
            if (Math.floorDiv(call.end(), 1_000_000L) >= off[0] && call.start() < off[1])
            {
                return true;
            }
        }
        return false;
    }

    /** Numbers the windows from the first call's on, each regime's after the one before. */
    private void number(final long fromMs, final long toMs)
    {
        offset = new long[timeline.size()];
        firstNumber = new long[timeline.size()];
        long next = 0;
        for (int i = 0; i < timeline.size(); i++)
        {
            final long lower = i == 0 ? fromMs : Math.max(fromMs, timeline.get(i).epochMs());
            final long upper = i + 1 < timeline.size() ? Math.min(toMs, timeline.get(i + 1).epochMs() - 1) : toMs;
            offset[i] = next;
            firstNumber[i] = number(i, lower);
            next += lower > upper ? 0 : number(i, upper) - firstNumber[i] + 1;
        }
    }

    /**
     * @param calls every admission of the quota, and the calls killed in flight.
     * @return the verdict.
     */
    public Verdict judge(final List<SoakCall> calls)
    {
        final List<long[]> spans = new ArrayList<>(); // {first window, last window, cost}
        long from = Long.MAX_VALUE;
        long to = Long.MIN_VALUE;
        long admitted = 0;
        long unknown = 0;
        long uncounted = 0;
        for (final SoakCall call : calls)
        {
            from = Math.min(from, Math.floorDiv(call.start(), 1_000_000L));
            to = Math.max(to, Math.floorDiv(call.end(), 1_000_000L));
        }
        number(from, to);
        for (final SoakCall call : calls)
        {
            if (!call.happened())
            {
                unknown++;
                continue;
            }
            admitted += call.cost();
            if (maybeOff(call))
            {
                uncounted += call.cost();
                continue;
            }
            spans.add(new long[] {ordinal(call.start()), ordinal(call.end()), call.cost()});
        }
        spans.sort(Comparator.comparingLong(s -> s[0]));
        final PriorityQueue<long[]> due = new PriorityQueue<>(Comparator.comparingLong(s -> s[1]));
        long windows = 0;
        long full = 0;
        String worst = null;
        long worstExcess = 0;
        int next = 0;
        long window = spans.isEmpty() ? 0 : spans.get(0)[0];
        while (next < spans.size() || !due.isEmpty())
        {
            if (due.isEmpty())
            {
                window = spans.get(next)[0];
            }
            while (next < spans.size() && spans.get(next)[0] <= window)
            {
                final long[] span = spans.get(next++);
                due.add(new long[] {span[0], span[1], span[2]});
            }
            final long limit = timeline.get(regimeOf(window)).limit();
            long left = limit == 0 ? Long.MAX_VALUE : limit;
            while (left > 0 && !due.isEmpty())
            {
                final long[] top = due.peek();
                final long take = Math.min(left, top[2]);
                top[2] -= take;
                left -= take;
                if (top[2] == 0)
                {
                    due.poll();
                }
            }
            windows++;
            full += left == 0 ? 1 : 0;
            long excess = 0;
            while (!due.isEmpty() && due.peek()[1] <= window)
            {
                excess += due.poll()[2];
            }
            if (excess > worstExcess)
            {
                worstExcess = excess;
                worst = describe(window, excess, spans);
            }
            window++;
        }
        return new Verdict(admitted, uncounted, windows, full, unknown, worst);
    }

    private String describe(final long window, final long excess, final List<long[]> spans)
    {
        final int i = regimeOf(window);
        final Regime regime = timeline.get(i);
        final long startMs = regime.epochMs() + (firstNumber[i] + window - offset[i]) * regime.windowMs();
        long inside = 0;
        for (final long[] span : spans)
        {
            inside += span[0] == window && span[1] == window ? span[2] : 0;
        }
        final Regime before = timeline.get(Math.max(0, i - 1));
        return String.format("%d too many by the window from %d ms (regime %d: %d per %d ms, from %d ms; the one " +
            "before: %d per %d ms, from %d ms), %d admitted by calls inside it alone", excess, startMs, i,
            regime.limit(), regime.windowMs(), regime.epochMs(), before.limit(), before.windowMs(), before.epochMs(),
            inside);
    }

    /** @return the regimes that came into force, in order. */
    public List<Regime> timeline()
    {
        return List.copyOf(timeline);
    }
}
