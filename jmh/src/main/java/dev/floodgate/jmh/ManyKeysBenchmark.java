package dev.floodgate.jmh;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import dev.floodgate.Quota;
import io.github.bucket4j.Bucket;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * 100,000 identifiers drawn with a Zipf (s = 1) skew, as a broker's users would arrive: the top key takes ~8%
 * of checks, the top 1,000 ~60%, and a long tail is seen rarely. Shows the cost of keys that miss this
 * process's address cache (a segment-locked Chronicle Map lookup). Every identifier's entry is created in
 * setup, so the measurement sees cache misses, not inserts. Each identifier is one {@code String} instance,
 * as a connection's user would be. Beside the checks by name: the same checks through {@link Quota} handles
 * held per identifier (as a broker holds one per connection), and the peer a Java team would write instead,
 * a Bucket4j bucket per identifier in a {@link ConcurrentHashMap}, walked in the same sequence.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class ManyKeysBenchmark
{
    static final int KEYS = 100_000;
    static final int SAMPLES = 1 << 20;
    static final double ZIPF_S = 1.0;

    Fixtures.Gate gate;
    String[] identifiers;
    /** The sequence of identifiers every thread walks, each thread from its own offset. */
    String[] sequence;
    /** The handle of each draw's identifier, one handle per identifier. */
    Quota[] handles;
    final Map<String, Bucket> buckets = new ConcurrentHashMap<>();
    final AtomicInteger nextOffset = new AtomicInteger();

    /** One thread's position in {@link #sequence}. */
    @State(Scope.Thread)
    public static class Cursor
    {
        int position;

        @Setup(Level.Trial)
        public void setUp(final ManyKeysBenchmark benchmark)
        {
            position = benchmark.nextOffset.getAndAdd(SAMPLES / 67) & (SAMPLES - 1);
        }

        String next(final String[] sequence)
        {
            final int p = position;
            position = (p + 1) & (SAMPLES - 1);
            return sequence[p];
        }

        Quota next(final Quota[] handles)
        {
            final int p = position;
            position = (p + 1) & (SAMPLES - 1);
            return handles[p];
        }
    }

    @Setup(Level.Trial)
    public void setUp()
    {
        identifiers = new String[KEYS];
        for (int i = 0; i < KEYS; i++)
        {
            identifiers[i] = "user-" + (1_000_000 + i);
        }
        sequence = zipfSequence(identifiers, SAMPLES, ZIPF_S, 42);
        gate = Fixtures.openAnd(300_000, g ->
        {
            for (final String identifier : identifiers)
            {
                Fixtures.requireAdmitted(g.floodgate.checkLimit(identifier, Fixtures.HOT), "checkLimit");
                Fixtures.requireAdmitted(g.floodgate.checkLimitInCaller(identifier, Fixtures.HOT),
                    "checkLimitInCaller");
            }
        });
        final Map<String, Quota> byIdentifier = new HashMap<>();
        for (final String identifier : identifiers)
        {
            byIdentifier.put(identifier, gate.floodgate.quota(identifier, Fixtures.HOT));
            buckets.put(identifier, newBucket());
        }
        handles = new Quota[SAMPLES];
        for (int i = 0; i < SAMPLES; i++)
        {
            handles[i] = byIdentifier.get(sequence[i]);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        try
        {
            Fixtures.requireNoRefusals(gate);
            if (gate.floodgate.stats().tableFullEvents() != 0)
            {
                throw new IllegalStateException("the table filled up: raise the capacity");
            }
        }
        finally
        {
            gate.close();
        }
    }

    @Benchmark
    public long checkLimit(final Cursor cursor)
    {
        return gate.floodgate.checkLimit(cursor.next(sequence), Fixtures.HOT);
    }

    @Benchmark
    public long checkLimitInCaller(final Cursor cursor)
    {
        return gate.floodgate.checkLimitInCaller(cursor.next(sequence), Fixtures.HOT);
    }

    /** The handle's bucket door, one handle per identifier. */
    @Benchmark
    public long quotaCheckLimit(final Cursor cursor)
    {
        return cursor.next(handles).checkLimit();
    }

    /** The handle's window door. */
    @Benchmark
    public long quotaCheckLimitInCaller(final Cursor cursor)
    {
        return cursor.next(handles).checkLimitInCaller();
    }

    /** The peer: a Bucket4j bucket per identifier in a {@link ConcurrentHashMap}, as a single JVM would keep them. */
    @Benchmark
    public boolean bucket4jMapTryConsume(final Cursor cursor)
    {
        return buckets.computeIfAbsent(cursor.next(sequence), k -> newBucket()).tryConsume(1);
    }

    private static Bucket newBucket()
    {
        return Bucket.builder().addLimit(limit -> limit.capacity(1_000_000_000L)
            .refillGreedy(1_000_000_000L, Duration.ofSeconds(1))).build();
    }

    /**
     * @param keys    the population; rank 0 is the most frequent.
     * @param samples how many draws.
     * @param s       the Zipf exponent.
     * @param seed    fixed, so every run walks the same sequence.
     * @return the draws, by inverting the cumulative distribution.
     */
    static String[] zipfSequence(final String[] keys, final int samples, final double s, final long seed)
    {
        final double[] cdf = new double[keys.length];
        double sum = 0;
        for (int i = 0; i < keys.length; i++)
        {
            sum += 1.0 / Math.pow(i + 1, s);
            cdf[i] = sum;
        }
        final SplittableRandom random = new SplittableRandom(seed);
        final String[] out = new String[samples];
        for (int i = 0; i < samples; i++)
        {
            final double u = random.nextDouble() * sum;
            int lo = 0;
            int hi = keys.length - 1;
            while (lo < hi)
            {
                final int mid = (lo + hi) >>> 1;
                if (cdf[mid] < u)
                {
                    lo = mid + 1;
                }
                else
                {
                    hi = mid;
                }
            }
            out[i] = keys[lo];
        }
        return out;
    }
}
