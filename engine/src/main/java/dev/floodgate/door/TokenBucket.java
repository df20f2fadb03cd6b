package dev.floodgate.door;

import dev.floodgate.store.BucketWords;
import dev.floodgate.store.Entry;

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
    /** Largest limit: a conversion's side record packs it beside the window into one word ({@code BucketConversion}). */
    public static final long MAX_LIMIT = (1L << 34) - 1;

    /** Tokens per window: the most one claim can take (a larger cost would overflow {@code cost * interval}). */
    final long limit;
    final long scale;
    final long interval;
    final long span;
    private final long admitThreshold;

    /**
     * @param limit    tokens per window, at least 1.
     * @param windowMs the window.
     */
    public TokenBucket(final long limit, final long windowMs)
    {
        final long windowNs = windowMs * NANOS_PER_MS;
        final long gcd = gcd(limit, windowNs);
        this.limit = limit;
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
        if (limit < 1 || limit > MAX_LIMIT || windowMs < 1 || windowMs > Long.MAX_VALUE / NANOS_PER_MS)
        {
            return false;
        }
        final long windowNs = windowMs * NANOS_PER_MS;
        final long scale = limit / gcd(limit, windowNs);
        return scale <= MAX_SCALE && windowNs <= MAX_SPAN / scale; // a product could wrap: units from a damaged file
    }

    /**
     * @param nowNanos monotonic time.
     * @return the TAT word of a bucket that is full at that time and reads full to any clock up to one window
     * behind it (another process's, read a moment earlier), so a new or reset bucket never starts in debt.
     */
    public long fullWord(final long nowNanos)
    {
        final long word = nowNanos * scale - span;
        return word == FROZEN ? word - 1 : word; // one unit less debt: still full
    }

    /**
     * Claims {@code cost} tokens at once, all or nothing (GCRA with an increment of {@code cost T}), as long as
     * the entry's generation stays {@code generation}.
     *
     * <p>The generation is loaded (acquire) <em>after</em> the TAT word and before the compare-and-set. A
     * conversion to new units publishes a new generation first and only then swaps the word (see
     * {@link #convert}); so a check that reads the converted word also sees the new generation and gives up,
     * and a check that read the old word either lands its compare-and-set before the swap (and is converted
     * with it) or fails it and re-reads. A check never applies one policy's units to another's word.
     *
     * <p>The clock is read after the TAT word on every attempt: a thread descheduled between a clock read and
     * its load would otherwise judge a word other threads moved on with a stale "now", and refuse a bucket that
     * has tokens. It is read before the generation test, which only arithmetic separates from the compare-and-set.
     *
     * @param entry        the bucket entry.
     * @param clock        monotonic time.
     * @param cost         tokens, 1 to limit.
     * @param generation   the generation the caller's units belong to.
     * @return {@link CheckResult#ADMITTED}, the milliseconds until {@code cost} tokens are available,
     * {@link CheckResult#NEVER} when {@code cost} exceeds these units' limit (a caller's rule a moment older than
     * the entry's units), or {@link #STALE} when the generation changed (resolve again).
     */
    public long tryAcquire(final Entry entry, final dev.floodgate.Ticker clock, final long cost,
        final long generation)
    {
        final long increment = cost * interval;
        final long threshold = span - increment;
        while (true)
        {
            final long tat = BucketWords.tatVolatile(entry);
            // the clock before the generation test: nothing but arithmetic may stand between that test and the
            // compare-and-set (a clock read there let a check stalled in it write into another key's bucket after a
            // reap reused the memory; found by review)
            final long now = clock.nanos() * scale;
            if (!entry.isCurrentAcquire(generation) || tat == FROZEN)
            {
                return STALE;
            }
            if (cost > limit)
            {
                return CheckResult.NEVER; // cost * interval overflowed, and no wait makes it fit
            }
            final long debt = debt(tat, now);
            if (debt > threshold)
            {
                return Math.max(1, ceilDiv(ceilDiv(debt - threshold, scale), NANOS_PER_MS));
            }
            if (BucketWords.casTat(entry, tat, notFrozen(now + debt + increment)))
            {
                return CheckResult.ADMITTED;
            }
        }
    }

    /**
     * Converts a TAT word from this bucket's units to {@code to}'s, keeping the debt in tokens (rounded up:
     * a conversion may charge a fraction of a token more, never less). A debt above the new capacity
     * becomes an empty bucket.
     *
     * @param tat      a TAT word in this bucket's units.
     * @param nowNanos monotonic time.
     * @param to       the new arithmetic.
     * @return the word in {@code to}'s units.
     */
    public long convert(final long tat, final long nowNanos, final TokenBucket to)
    {
        final long debt = debt(tat, nowNanos * scale);
        final long converted;
        if (Math.multiplyHigh(debt, to.interval) == 0 && debt * to.interval >= 0)
        {
            // the usual case, without allocating: conversions run under a segment's guard
            converted = -Math.floorDiv(-(debt * to.interval), interval);
        }
        else
        {
            final java.math.BigInteger[] qr = java.math.BigInteger.valueOf(debt)
                .multiply(java.math.BigInteger.valueOf(to.interval))
                .divideAndRemainder(java.math.BigInteger.valueOf(interval));
            // capped before it is narrowed: a debt far above the new capacity (10^6 spent, then 1 a week) overflowed
            // a long, and every check of the key threw (found by review)
            converted = qr[0].compareTo(java.math.BigInteger.valueOf(to.span)) >= 0 ? to.span :
                qr[0].longValueExact() + (qr[1].signum() > 0 ? 1 : 0);
        }
        return notFrozen(nowNanos * to.scale + Math.min(converted, to.span));
    }

    /** Returned by the generation-checked {@link #tryAcquire} when the entry's units changed. */
    public static final long STALE = Long.MIN_VALUE;

    /**
     * The TAT word of a bucket a conversion is rewriting ({@link BucketConversion}): every check treats it as
     * stale and resolves again, the janitor never as idle. No arithmetic here ever stores it: a word that would
     * equal it carries one unit more debt (or, for a full word, one less).
     */
    public static final long FROZEN = BucketWords.FROZEN_TAT;

    static long notFrozen(final long word)
    {
        return word == FROZEN ? word + 1 : word;
    }

    /**
     * @param tat      a TAT word.
     * @param nowNanos monotonic time.
     * @return true when the bucket holds every token (the janitor may reap it); never for {@link #FROZEN}.
     */
    public boolean isFull(final long tat, final long nowNanos)
    {
        return tat != FROZEN && debt(tat, nowNanos * scale) == 0;
    }

    /**
     * @param tat      a TAT word.
     * @param nowNanos monotonic time.
     * @return whole tokens available now (0 while a conversion has the word frozen).
     */
    public long available(final long tat, final long nowNanos)
    {
        return tat == FROZEN ? 0 : (span - debt(tat, nowNanos * scale)) / interval;
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

    /**
     * @param tat      a TAT word.
     * @param nowNanos monotonic time.
     * @return nanoseconds until the bucket is full again; 0 when it is.
     */
    public long nanosToFull(final long tat, final long nowNanos)
    {
        return ceilDiv(debt(tat, nowNanos * scale), scale);
    }

    long debt(final long tat, final long now)
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

    static long ceilDiv(final long x, final long y)
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
