package dev.floodgate;

import dev.floodgate.testkit.ModelSeeds;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link ModelCheckTest}'s idea at byte scale: weighted checks, charges and probes of both doors, with costs from 1
 * to just over the limit and limits up to the largest each door takes, while the clock moves by a nanosecond to
 * days and the bucket's policy changes among rates of very different units (so its word is converted), compared
 * result by result with a reference model in exact rational arithmetic ({@link BigInteger}), written apart from
 * the engine: a bucket's deficit in tokens x window ns, refilled by elapsed ns x limit, converted by the documented
 * rule (the first check after a change keeps the deficit, rounded up to the new units, at most the capacity); a
 * window's count per (regime, window) under {@link ModelCheckTest.ModelPolicy}; a charge naming one quota twice
 * answers {@code NEVER} when its parts together exceed the limit ({@link ChargeSameQuotaTwiceTest}). One thread, a
 * clock that never goes back: every answer is exact, the retry-after included. Repeatable from the printed seed.
 */
class WeightedModelTest
{
    private static final long MS = 1_000_000L;
    private static final Action BUCKET = Action.SUBSCRIBE;
    private static final Action WINDOW = Action.PUBLISH;
    /** Bucket rates {limit, window ms} fitting the bucket, with pairwise different units (scale). */
    private static final long[][] BUCKET_RULES = {
        {7, 1_000}, {1_000_000_000L, 1_000}, {1L << 33, 131_072}, {1_021, FloodgateConfig.MAX_WINDOW_MS},
        {16_000_000_000L, 1_000}, {1_220_703_125L, 1_000}, {999, 1}};
    private static final long[] WINDOW_LIMITS = {0, 1, 1_000, (1L << 40) + 7, FloodgateConfig.MAX_LIMIT};
    private static final long[] WINDOWS_MS = {1, 1_000, FloodgateConfig.MAX_WINDOW_MS};

    @TempDir
    Path dir;

    static LongStream seeds()
    {
        return ModelSeeds.seeds(1, 2, 3);
    }

    /** The reference bucket: the deficit in tokens x window ns, and the units it was last converted to. */
    static final class ModelBucket
    {
        long limit;
        long windowNs;
        BigInteger deficit = BigInteger.ZERO;
        long last;

        ModelBucket(final long[] rule, final long now)
        {
            this.limit = rule[0];
            this.windowNs = rule[1] * MS;
            this.last = now;
        }

        BigInteger capacity()
        {
            return big(limit).multiply(big(windowNs));
        }

        /** Refills to {@code now}, then moves to {@code rule}'s units as a check's conversion does. */
        void at(final long now, final long[] rule)
        {
            deficit = deficit.subtract(big(now - last).multiply(big(limit))).max(BigInteger.ZERO);
            last = now;
            if (rule[0] != limit || rule[1] * MS != windowNs)
            {
                final long newWindowNs = rule[1] * MS;
                final long interval = newWindowNs / gcd(rule[0], newWindowNs);
                // the deficit in tokens, rounded up to a whole number of the new units (1/interval of a token)
                final BigInteger[] units = deficit.multiply(big(interval)).divideAndRemainder(big(windowNs));
                final BigInteger up = units[1].signum() > 0 ? units[0].add(BigInteger.ONE) : units[0];
                limit = rule[0];
                windowNs = newWindowNs;
                deficit = up.multiply(big(newWindowNs / interval)).min(capacity());
            }
        }

        /** @return the answer to a claim of {@code cost} now, without claiming. */
        long answer(final long cost)
        {
            if (cost > limit)
            {
                return Floodgate.NEVER;
            }
            final BigInteger over = deficit.add(big(cost).multiply(big(windowNs))).subtract(capacity());
            if (over.signum() <= 0)
            {
                return Floodgate.ADMITTED;
            }
            return Math.max(1, ceil(ceil(over, big(limit)), big(MS)).longValueExact());
        }

        void claim(final long cost)
        {
            deficit = deficit.add(big(cost).multiply(big(windowNs)));
        }

        Probe probe()
        {
            final BigInteger[] tokens = capacity().subtract(deficit).divideAndRemainder(big(windowNs));
            final long whole = tokens[0].longValueExact();
            final BigInteger toNext = big(windowNs).subtract(tokens[1]); // deficit of the next whole token
            final long nextMs = whole >= 1 ? 0 : Math.max(1, ceil(ceil(toNext, big(limit)), big(MS)).longValueExact());
            return new Probe(limit, whole, nextMs, ceil(ceil(deficit, big(limit)), big(MS)).longValueExact());
        }
    }

    /** The reference window: the count of the newest (regime, window) claimed in. */
    static final class ModelWindow
    {
        final ModelCheckTest.ModelPolicy policy;
        int regime = -1;
        long window;
        long used;

        ModelWindow(final ModelCheckTest.ModelPolicy policy)
        {
            this.policy = policy;
        }

        /** @return {regime limit, the count now, ms to the window's end}; the regime's limit 0 when off. */
        long[] state(final long nowMs)
        {
            final int r = policy.regimeAt(nowMs);
            final long[] regime = policy.regimes.get(r);
            final long w = Math.floorDiv(nowMs - regime[2], regime[1]);
            long end = regime[2] + (w + 1) * regime[1];
            if (r + 1 < policy.regimes.size())
            {
                end = Math.min(end, policy.regimes.get(r + 1)[2]);
            }
            return new long[] {regime[0], r == this.regime && w == window ? used : 0, Math.max(1, end - nowMs)};
        }

        long answer(final long nowMs, final long cost)
        {
            final long[] s = state(nowMs);
            return s[0] == 0 ? Floodgate.ADMITTED : cost > s[0] ? Floodgate.NEVER :
                s[1] + cost <= s[0] ? Floodgate.ADMITTED : s[2];
        }

        /** A claim (admitted or not) enters the regime: a later publish starts its successor after this window. */
        void enter(final long nowMs)
        {
            final int r = policy.regimeAt(nowMs);
            if (r == policy.regimes.size() - 1)
            {
                policy.checkedMs = Math.max(policy.checkedMs, nowMs);
            }
        }

        void claim(final long nowMs, final long cost)
        {
            final int r = policy.regimeAt(nowMs);
            final long[] regime = policy.regimes.get(r);
            final long w = Math.floorDiv(nowMs - regime[2], regime[1]);
            if (r != this.regime || w != window)
            {
                this.regime = r;
                window = w;
                used = 0;
            }
            used += cost;
        }

        Probe probe(final long nowMs)
        {
            final long[] s = state(nowMs);
            if (s[0] == 0)
            {
                return new Probe(0, Long.MAX_VALUE, 0, 0);
            }
            final long remaining = s[0] - s[1];
            return new Probe(s[0], remaining, remaining >= 1 ? 0 : s[2], s[2]);
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @MethodSource("seeds")
    void shouldAgreeWithTheExactModelOnWeightedChecksChargesAndProbesAtByteScale(final long seed)
    {
        System.out.println("WeightedModelTest seed=" + seed);
        final Random random = new Random(seed);
        final ManualTicker ticker = new ManualTicker(random.nextLong() >> 12);
        long[] bucketRule = BUCKET_RULES[random.nextInt(BUCKET_RULES.length)];
        final FloodgateConfig.Builder builder = FloodgateConfig.builder().file(dir.resolve("w-" + seed + ".map"))
            .capacity(1_000).ticker(ticker).limit(BUCKET, bucketRule[0], bucketRule[1])
            .limit(WINDOW, FloodgateConfig.MAX_LIMIT, 1_000);
        final ModelCheckTest.ModelPolicy windowPolicy = new ModelCheckTest.ModelPolicy(FloodgateConfig.MAX_LIMIT,
            1_000);
        final Map<String, ModelBucket> buckets = new HashMap<>();
        final Map<String, ModelWindow> windows = new HashMap<>();
        final StringBuilder history = new StringBuilder();
        final long[] outcomes = new long[6]; // per door: admitted, refused for a while, NEVER
        try (Floodgate gate = Floodgate.open(builder.build()))
        {
            final int steps = ModelSeeds.steps(3_000);
            for (int step = 0; step < steps; step++)
            {
                final String id = "id-" + random.nextInt(3);
                final long now = ticker.nanos();
                final long nowMs = Math.floorDiv(now, MS);
                final ModelBucket bucket = buckets.get(id);
                final ModelWindow window = windows.computeIfAbsent(id, k -> new ModelWindow(windowPolicy));
                final int op = random.nextInt(100);
                final String where = "seed " + seed + " step " + step + " op " + op + " " + id + " at " + now +
                    "; the last steps: " + tail(history);
                if (op < 25)
                {
                    final long cost = cost(random, bucketRule[0]);
                    final long expected = bucketAnswer(buckets, id, now, bucketRule, cost);
                    assertEquals(expected, gate.checkLimit(id, BUCKET, cost), where + " bucket cost " + cost);
                    outcomes[kind(expected)]++;
                    if (expected == Floodgate.ADMITTED)
                    {
                        buckets.get(id).claim(cost);
                    }
                    history.append(" b").append(cost).append('=').append(expected);
                }
                else if (op < 50)
                {
                    final long limit = window.state(nowMs)[0];
                    final long cost = cost(random, limit == 0 ? 1_000 : limit);
                    final long expected = window.answer(nowMs, cost);
                    assertEquals(expected, gate.checkLimitInCaller(id, WINDOW, cost), where + " window cost " + cost);
                    outcomes[3 + kind(expected)]++;
                    if (limit != 0 && cost <= limit)
                    {
                        window.enter(nowMs);
                    }
                    if (expected == Floodgate.ADMITTED && limit != 0)
                    {
                        window.claim(nowMs, cost);
                    }
                    history.append(" w").append(cost).append('=').append(expected);
                }
                else if (op < 60)
                {
                    // a produce's records and bytes, all or nothing; the first quota refused answers for the whole
                    final long bucketCost = cost(random, bucketRule[0]);
                    final long limit = window.state(nowMs)[0];
                    final long windowCost = cost(random, limit == 0 ? 1_000 : limit);
                    final long b = bucketAnswer(buckets, id, now, bucketRule, bucketCost);
                    final long w = window.answer(nowMs, windowCost);
                    final long expected = b != Floodgate.ADMITTED ? b : w;
                    assertEquals(expected, gate.charge(List.of(Charge.bucket(id, BUCKET, bucketCost),
                        Charge.window(id, WINDOW, windowCost))), where + " charge " + bucketCost + " + " + windowCost);
                    if (b == Floodgate.ADMITTED && limit != 0 && windowCost <= limit)
                    {
                        window.enter(nowMs);
                    }
                    if (expected == Floodgate.ADMITTED)
                    {
                        buckets.get(id).claim(bucketCost);
                        if (limit != 0)
                        {
                            window.claim(nowMs, windowCost);
                        }
                    }
                    history.append(" c").append(bucketCost).append('+').append(windowCost).append('=').append(expected);
                }
                else if (op < 65)
                {
                    // one quota named twice: the parts together over the limit can never be admitted
                    final boolean onBucket = random.nextBoolean();
                    final long limit = onBucket ? bucketRule[0] : window.state(nowMs)[0];
                    final long first = cost(random, limit == 0 ? 1_000 : limit);
                    final long second = cost(random, limit == 0 ? 1_000 : limit);
                    final long expected = onBucket ? twiceOnBucket(buckets, id, now, bucketRule, first, second) :
                        twiceOnWindow(window, nowMs, first, second);
                    final Action action = onBucket ? BUCKET : WINDOW;
                    assertEquals(expected, gate.charge(List.of(new Charge(id, action, onBucket, first),
                        new Charge(id, action, onBucket, second))), where + " charge of one " +
                        (onBucket ? "bucket" : "window") + " quota " + first + " + " + second);
                    history.append(onBucket ? " bb" : " ww").append(first).append('+').append(second).append('=')
                        .append(expected);
                }
                else if (op < 75)
                {
                    if (bucket != null)
                    {
                        // a probe converts nothing: the model's bucket as the next check would see it, not kept
                        final ModelBucket copy = new ModelBucket(new long[] {bucket.limit, bucket.windowNs / MS}, 0);
                        copy.deficit = bucket.deficit;
                        copy.last = bucket.last;
                        copy.at(now, bucketRule);
                        assertEquals(copy.probe(), gate.probe(id, BUCKET), where + " probe");
                    }
                    else
                    {
                        assertEquals(new Probe(bucketRule[0], bucketRule[0], 0, 0), gate.probe(id, BUCKET),
                            where + " probe of a bucket never checked");
                    }
                    assertEquals(window.probe(nowMs), gate.probeInCaller(id, WINDOW), where + " probeInCaller");
                }
                else if (op < 78)
                {
                    gate.reset(id, BUCKET);
                    gate.reset(id, WINDOW);
                    buckets.remove(id);
                    windows.remove(id);
                    history.append(" reset");
                }
                else if (op < 94)
                {
                    // a nanosecond to about eleven days, log-uniformly
                    final long delta = (long)Math.pow(10, random.nextDouble() * 15);
                    ticker.advanceNanos(delta);
                    history.append(" +").append(delta).append("ns");
                }
                else if (op < 97)
                {
                    bucketRule = BUCKET_RULES[random.nextInt(BUCKET_RULES.length)];
                    gate.reconfigure(builder.limit(BUCKET, bucketRule[0], bucketRule[1]).build());
                    history.append(" bucket ").append(bucketRule[0]).append('/').append(bucketRule[1]);
                }
                else
                {
                    final long limit = WINDOW_LIMITS[random.nextInt(WINDOW_LIMITS.length)];
                    final long windowMs = WINDOWS_MS[random.nextInt(WINDOWS_MS.length)];
                    gate.reconfigure(builder.limit(WINDOW, limit, windowMs).build());
                    windowPolicy.publish(limit, windowMs, nowMs);
                    history.append(" window ").append(limit).append('/').append(windowMs);
                }
            }
        }
        System.out.println("bucket admitted, refused, never; window the same: " + java.util.Arrays.toString(outcomes));
        for (final long count : outcomes)
        {
            assertTrue(count > 0, "the premise, every answer of each door was met: " +
                java.util.Arrays.toString(outcomes));
        }
    }

    private static int kind(final long answer)
    {
        return answer == Floodgate.ADMITTED ? 0 : answer == Floodgate.NEVER ? 2 : 1;
    }

    /**
     * A claim's answer. A cost over the policy's limit is {@code NEVER} before the entry is touched: nothing made,
     * nothing converted. Otherwise the first claim makes the bucket, full in the rule's units, and later ones
     * refill it and convert it to the rule's units.
     */
    private static long bucketAnswer(final Map<String, ModelBucket> buckets, final String id, final long now,
        final long[] rule, final long cost)
    {
        if (cost > rule[0])
        {
            return Floodgate.NEVER;
        }
        buckets.computeIfAbsent(id, k -> new ModelBucket(rule, now)).at(now, rule);
        return buckets.get(id).answer(cost);
    }

    /** A charge of {@code first} then {@code second} on one bucket: the model's state moves as the engine's. */
    private static long twiceOnBucket(final Map<String, ModelBucket> buckets, final String id, final long now,
        final long[] rule, final long first, final long second)
    {
        if (first > rule[0] || first + second > rule[0])
        {
            return Floodgate.NEVER; // before any claim: nothing made, nothing converted
        }
        final long one = bucketAnswer(buckets, id, now, rule, first);
        if (one != Floodgate.ADMITTED)
        {
            return one;
        }
        final ModelBucket bucket = buckets.get(id);
        bucket.claim(first);
        final long two = bucket.answer(second);
        if (two == Floodgate.ADMITTED)
        {
            bucket.claim(second);
        }
        else
        {
            bucket.deficit = bucket.deficit.subtract(big(first).multiply(big(bucket.windowNs))); // given back whole
        }
        return two;
    }

    /** As {@link #twiceOnBucket}, on one window. */
    private static long twiceOnWindow(final ModelWindow window, final long nowMs, final long first, final long second)
    {
        final long limit = window.state(nowMs)[0];
        if (limit == 0)
        {
            return Floodgate.ADMITTED;
        }
        if (first > limit || first + second > limit)
        {
            return Floodgate.NEVER;
        }
        window.enter(nowMs);
        final long one = window.answer(nowMs, first);
        if (one != Floodgate.ADMITTED)
        {
            return one;
        }
        window.claim(nowMs, first);
        final long two = window.answer(nowMs, second);
        if (two == Floodgate.ADMITTED)
        {
            window.claim(nowMs, second);
        }
        else
        {
            window.used -= first;
        }
        return two;
    }

    /** @return 1, a few, about a third of the limit, just under, at or over it, or any cost up to it. */
    private static long cost(final Random random, final long limit)
    {
        return switch (random.nextInt(7))
        {
            case 0 -> 1;
            case 1 -> 1 + random.nextInt(10);
            case 2 -> Math.max(1, limit / 3);
            case 3 -> Math.max(1, limit - 1);
            case 4 -> limit;
            case 5 -> limit + 1;
            default -> 1 + (long)(random.nextDouble() * limit);
        };
    }

    private static String tail(final StringBuilder history)
    {
        return history.substring(Math.max(0, history.length() - 600));
    }

    private static BigInteger big(final long v)
    {
        return BigInteger.valueOf(v);
    }

    private static BigInteger ceil(final BigInteger a, final BigInteger b)
    {
        final BigInteger[] qr = a.divideAndRemainder(b);
        return qr[1].signum() > 0 ? qr[0].add(BigInteger.ONE) : qr[0];
    }

    private static long gcd(final long a, final long b)
    {
        return BigInteger.valueOf(a).gcd(BigInteger.valueOf(b)).longValueExact();
    }
}
