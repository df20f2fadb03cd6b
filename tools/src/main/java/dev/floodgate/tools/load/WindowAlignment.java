package dev.floodgate.tools.load;

import java.util.concurrent.TimeUnit;
import java.util.function.LongUnaryOperator;

/**
 * Keeps a run of the window door inside one fixed window, so its exact expectation is one limit per key: the
 * window door admits exactly {@code limit} per window, and a run straddling a boundary would admit up to
 * twice that. Windows are numbered by the monotonic clock every process of the host shares, so the parent
 * can compute the boundaries the workers will see; when the run would not end at least {@link #MARGIN_NANOS}
 * before the boundary, it starts just after the boundary instead.
 */
public final class WindowAlignment implements LongUnaryOperator
{
    /** Slack for the window door's coarse clock, which may trail by a tick plus a descheduling. */
    public static final long MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final long windowNanos;
    private final long durationNanos;

    /**
     * @param windowMs   the window door's window.
     * @param durationNs the run's length; at most the window less two margins.
     */
    public WindowAlignment(final long windowMs, final long durationNs)
    {
        this.windowNanos = TimeUnit.MILLISECONDS.toNanos(windowMs);
        this.durationNanos = durationNs;
        if (durationNs + 2 * MARGIN_NANOS > windowNanos)
        {
            throw new IllegalArgumentException("a run of " + durationNs + " ns cannot fit in a window of " +
                windowMs + " ms");
        }
    }

    @Override
    public long applyAsLong(final long earliestStart)
    {
        final long windowEnd = (Math.floorDiv(earliestStart, windowNanos) + 1) * windowNanos;
        return earliestStart + durationNanos + MARGIN_NANOS <= windowEnd ? earliestStart : windowEnd + MARGIN_NANOS;
    }

    /**
     * @param nanos monotonic time.
     * @return the window number the window door gives that time.
     */
    public long windowNumber(final long nanos)
    {
        return Math.floorDiv(nanos, windowNanos);
    }
}
