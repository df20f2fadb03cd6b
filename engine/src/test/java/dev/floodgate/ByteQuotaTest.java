package dev.floodgate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Byte-scale quotas: a window limit of 2<sup>40</sup> bytes and more, a bucket of 10<sup>9</sup>, charged in
 * bytes, exact as a one-token quota is; and a limit the bucket cannot represent is a window-only quota that the
 * bucket's methods refuse to serve with an error saying so. An injected ticker holds time still.
 */
class ByteQuotaTest
{
    private static final long MS = 1_000_000L;
    private static final long TIB = 1L << 40;
    private static final long GB = 1_000_000_000L;

    @TempDir
    Path dir;

    private final ManualTicker ticker = new ManualTicker(3_600_000 * MS);
    private Floodgate gate;

    @BeforeEach
    void open()
    {
        gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("bytes.map")).capacity(1_000).ticker(ticker)
            .limit(Action.PUBLISH, FloodgateConfig.MAX_LIMIT, 1_000).limit(Action.SUBSCRIBE, GB, 1_000).build());
    }

    @AfterEach
    void close()
    {
        gate.close();
    }

    @Test
    void shouldCountBytesExactlyUpToTheLargestWindowLimitAndStartAfreshInTheNextWindow()
    {
        final long limit = FloodgateConfig.MAX_LIMIT;
        assertTrue(limit >= 4 * TIB - 1, "at least 2^40 per window: " + limit);
        assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("alice", Action.PUBLISH, TIB));
        assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("alice", Action.PUBLISH, limit - TIB - 1));
        assertEquals(new Probe(limit, 1, 0, 1_000), gate.probeInCaller("alice", Action.PUBLISH));
        assertTrue(gate.checkLimitInCaller("alice", Action.PUBLISH, 2) > 0, "one byte left: two are refused");
        assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("alice", Action.PUBLISH, 1));
        assertTrue(gate.checkLimitInCaller("alice", Action.PUBLISH, 1) > 0, "the window is spent to the byte");
        assertEquals(Floodgate.NEVER, gate.checkLimitInCaller("alice", Action.PUBLISH, limit + 1));
        ticker.advanceMs(1_000);
        assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("alice", Action.PUBLISH, limit),
            "the next window holds the whole limit again");
    }

    @Test
    void shouldNeverAdmitMoreBytesThanTheLimitWhateverTheThreadsAndTheirCosts() throws Exception
    {
        final long limit = 3 * TIB + 12_345;
        gate.close();
        gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("race.map")).capacity(1_000).ticker(ticker)
            .limit(Action.PUBLISH, limit, 1_000).build());
        final int threads = 4;
        final CyclicBarrier start = new CyclicBarrier(threads);
        final ExecutorService pool = Executors.newFixedThreadPool(threads);
        try
        {
            final List<Future<long[]>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final long seed = t;
                results.add(pool.submit(() ->
                {
                    final SplittableRandom random = new SplittableRandom(seed);
                    long admitted = 0;
                    long largestRefused = 0;
                    start.await(10, TimeUnit.SECONDS);
                    for (int i = 0; i < 20_000; i++)
                    {
                        final long cost = 1 + random.nextLong(TIB / 1_000);
                        if (gate.checkLimitInCaller("bulk", Action.PUBLISH, cost) == Floodgate.ADMITTED)
                        {
                            admitted += cost;
                        }
                        else
                        {
                            largestRefused = Math.max(largestRefused, cost);
                        }
                    }
                    return new long[] {admitted, largestRefused};
                }));
            }
            long admitted = 0;
            for (final Future<long[]> result : results)
            {
                admitted += result.get(60, TimeUnit.SECONDS)[0];
            }
            assertTrue(admitted <= limit, "admitted " + admitted + " bytes of " + limit);
            final Probe left = gate.probeInCaller("bulk", Action.PUBLISH);
            assertEquals(limit - admitted, left.remaining(), "the shards hold exactly what was admitted");
        }
        finally
        {
            pool.shutdownNow();
            assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void shouldServeABillionTokenBucketExactly()
    {
        assertEquals(Floodgate.ADMITTED, gate.checkLimit("bob", Action.SUBSCRIBE, GB - 1));
        assertEquals(new Probe(GB, 1, 0, 1_000), gate.probe("bob", Action.SUBSCRIBE));
        assertEquals(1, gate.checkLimit("bob", Action.SUBSCRIBE, 2), "the next token in a nanosecond: 1 ms");
        assertEquals(Floodgate.ADMITTED, gate.checkLimit("bob", Action.SUBSCRIBE, 1));
        ticker.advanceMs(500);
        assertEquals(GB / 2, gate.probe("bob", Action.SUBSCRIBE).remaining(), "refilled at a billion per second");
    }

    @Test
    void shouldRefuseToServeAWindowOnlyQuotaThroughTheBucketNamingWhy()
    {
        final IllegalStateException check = assertThrows(IllegalStateException.class,
            () -> gate.checkLimit("alice", Action.PUBLISH));
        assertTrue(check.getMessage().startsWith("PUBLISH: the node's limit " + FloodgateConfig.MAX_LIMIT +
            " per 1000 ms is a window-only quota (checkLimitInCaller)"), check.getMessage());
        assertThrows(IllegalStateException.class, () -> gate.probe("alice", Action.PUBLISH));
        assertThrows(IllegalStateException.class, () -> gate.quota("alice", Action.PUBLISH).checkLimit(5));
        assertThrows(IllegalStateException.class, () -> gate.charge(
            List.of(Charge.window("alice", Action.SUBSCRIBE, 1), Charge.bucket("alice", Action.PUBLISH, 1))));
        assertEquals(GB, gate.probeInCaller("alice", Action.SUBSCRIBE).remaining(),
            "the refused charge claimed nothing before it threw");
        assertEquals(0, gate.checks().get(Action.PUBLISH).admitted() + gate.checks().get(Action.PUBLISH).refused(),
            "nothing was counted");
    }
}
