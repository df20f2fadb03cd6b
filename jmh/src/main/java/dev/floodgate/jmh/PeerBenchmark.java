package dev.floodgate.jmh;

import com.google.common.util.concurrent.RateLimiter;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
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
import org.openjdk.jmh.annotations.Warmup;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * In-process peers doing the same work as {@link HotKeyBenchmark}: one limiter instance (one hot key) shared
 * by every thread, at 10<sup>9</sup> per second so every call takes the admitted path. Configured as in
 * shared/research/peer-baselines.md. They limit one JVM only; Floodgate's doors limit every JVM on the host.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class PeerBenchmark
{
    static final long RATE = 1_000_000_000L;

    Bucket bucket4j;
    RateLimiter guava;
    AtomicRateLimiter resilience4j;

    @Setup(Level.Trial)
    public void setUp()
    {
        // Bucket4j's default synchronization is its lock-free CAS on an immutable state copy
        bucket4j = Bucket.builder()
            .addLimit(limit -> limit.capacity(RATE).refillGreedy(RATE, Duration.ofSeconds(1)))
            .build();
        guava = RateLimiter.create(RATE);
        resilience4j = new AtomicRateLimiter("bench", RateLimiterConfig.custom()
            .limitForPeriod((int)RATE)
            .limitRefreshPeriod(Duration.ofSeconds(1))
            .timeoutDuration(Duration.ZERO)
            .build());
        for (int i = 0; i < 1000; i++)
        {
            if (!bucket4j.tryConsume(1) || !guava.tryAcquire() || !resilience4j.acquirePermission())
            {
                throw new IllegalStateException("a peer refused in the sanity check");
            }
        }
    }

    /** Bucket4j's local lock-free bucket. */
    @Benchmark
    public boolean bucket4jTryConsume()
    {
        return bucket4j.tryConsume(1);
    }

    /** Guava's smooth bursty limiter (synchronized). */
    @Benchmark
    public boolean guavaTryAcquire()
    {
        return guava.tryAcquire();
    }

    /** Resilience4j's CAS limiter, which parks 1 ns after a lost CAS. */
    @Benchmark
    public boolean resilience4jAcquirePermission()
    {
        return resilience4j.acquirePermission();
    }
}
