package dev.floodgate.door;

import dev.floodgate.Floodgate;
import org.agrona.concurrent.AtomicBuffer;

/**
 * The exact token bucket of {@code checkLimit}, as GCRA on one word: the theoretical arrival time (TAT).
 *
 * <p>Capacity {@code limit}, refilling continuously at {@code limit} per window, starting full. To lose no
 * fractional credit, time is counted in units of {@code 1/scale} ns where {@code scale = limit / gcd(limit,
 * windowNs)}: then one token's emission interval {@code T = windowNs / gcd} is a whole number of units and the
 * arithmetic is exact. Admit at time {@code t} when {@code tat - t <= (limit - 1) T}; the new TAT is
 * {@code max(tat, t) + T}. One compare-and-set claims each token, so the bucket is exact across every thread of
 * every process mapping the file, and no lock is held at any point.
 *
 * <p>The TAT word wraps modulo 2<sup>64</sup> units and is read relative to now, as a debt {@code tat - t}:
 * <ul>
 * <li>{@code [0, limit T]}: the real debt;</li>
 * <li>{@code (limit T, 2 limit T]}: the caller's clock reads a little behind the one that wrote the word (a
 * negative time delta), treated as no time elapsed: the bucket is empty;</li>
 * <li>negative, or beyond that: a full bucket (an idle word far in the past reads so after wrapping).</li>
 * </ul>
 * {@link #fits} keeps {@code 2 limit T} below 2<sup>63</sup> and {@code scale} at most {@link #MAX_SCALE}, so a
 * word must sit untouched for over 2<sup>63</sup>/{@code scale} ns (104 days) before it could read as debt
 * again; the janitor reaps a full bucket long before that whenever any process has the file open.
 * Immutable and thread-safe.
 */
public final class TokenBucket
{
    private static final long NANOS_PER_MS = 1_000_000L;
    private static final long MAX_SPAN = 1L << 61;
    /** Largest {@code limit / gcd(limit, windowNs)}: bounds how long a word may idle before it could wrap. */
    public static final long MAX_SCALE = 1024;

    private final long scale;
    private final long interval;
    private final long span;
    private final long admitThreshold;

    /**
     * @param limit    tokens per window, at least 1.
     * @param windowMs the window.
     */
    public TokenBucket(final long limit, final long windowMs)
    {
        final long windowNs = windowMs * NANOS_PER_MS;
        final long gcd = gcd(limit, windowNs);
        this.scale = limit / gcd;
        this.interval = windowNs / gcd;
        this.span = Math.multiplyExact(windowNs, scale);
        this.admitThreshold = span - interval;
    }

    /**
     * @param limit    tokens per window.
     * @param windowMs the window.
     * @return true when the bucket can hold this rate exactly.
     */
    public static boolean fits(final long limit, final long windowMs)
    {
        if (limit < 1 || windowMs < 1 || windowMs > Long.MAX_VALUE / NANOS_PER_MS)
        {
            return false;
        }
        final long windowNs = windowMs * NANOS_PER_MS;
        final long scale = limit / gcd(limit, windowNs);
        return scale <= MAX_SCALE && windowNs * scale <= MAX_SPAN;
    }

    /**
     * @param nowNanos monotonic time.
     * @return the TAT word of a bucket that is full at that time and reads full to any clock up to one window
     * behind it (another process's, read a moment earlier), so a new or reset bucket never starts in debt.
     */
    public long fullWord(final long nowNanos)
    {
        return nowNanos * scale - span;
    }

    /**
     * Claims one token with a compare-and-set loop.
     *
     * @param buffer   the entry's value.
     * @param offset   the TAT word's offset.
     * @param nowNanos monotonic time.
     * @return {@link Floodgate#ADMITTED}, or the milliseconds until the next whole token (at least 1).
     */
    public long tryAcquire(final AtomicBuffer buffer, final int offset, final long nowNanos)
    {
        final long now = nowNanos * scale;
        while (true)
        {
            final long tat = buffer.getLongVolatile(offset);
            final long debt = debt(tat, now);
            if (debt > admitThreshold)
            {
                return retryAfterMs(debt);
            }
            if (buffer.compareAndSetLong(offset, tat, now + debt + interval))
            {
                return Floodgate.ADMITTED;
            }
        }
    }

    /**
     * @param tat      a TAT word.
     * @param nowNanos monotonic time.
     * @return true when the bucket holds every token (the janitor may reap it).
     */
    public boolean isFull(final long tat, final long nowNanos)
    {
        return debt(tat, nowNanos * scale) == 0;
    }

    /**
     * @param tat      a TAT word.
     * @param nowNanos monotonic time.
     * @return whole tokens available now.
     */
    public long available(final long tat, final long nowNanos)
    {
        return (span - debt(tat, nowNanos * scale)) / interval;
    }

    /**
     * @param tat      a TAT word.
     * @param nowNanos monotonic time.
     * @return nanoseconds until the next whole token; 0 when the bucket is full.
     */
    public long nanosToNextToken(final long tat, final long nowNanos)
    {
        final long debt = debt(tat, nowNanos * scale);
        if (debt == 0)
        {
            return 0;
        }
        final long partial = debt % interval;
        return ceilDiv(partial == 0 ? interval : partial, scale);
    }

    private long debt(final long tat, final long now)
    {
        final long debt = tat - now;
        if (debt < 0 || debt > span + span)
        {
            return 0;
        }
        return Math.min(debt, span);
    }

    private long retryAfterMs(final long debt)
    {
        final long nanos = ceilDiv(debt - admitThreshold, scale);
        return Math.max(1, ceilDiv(nanos, NANOS_PER_MS));
    }

    private static long ceilDiv(final long x, final long y)
    {
        return -Math.floorDiv(-x, y);
    }

    private static long gcd(final long a, final long b)
    {
        long x = a;
        long y = b;
        while (y != 0)
        {
            final long t = x % y;
            x = y;
            y = t;
        }
        return x;
    }
}
