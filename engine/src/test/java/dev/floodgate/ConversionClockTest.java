package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Review (review-bucket): a bucket's conversion to new units reads the clock before it freezes the TAT word
 * ({@code SlotResolver.upgrade} passes {@code ticker.nanos()} to {@code BucketConversion.run}), while checks in the old
 * units keep claiming lock-free until the freeze. A converter descheduled after that read for more than a window
 * then judges a word a later claim moved with a stale "now": the debt reads as more than twice the capacity, which
 * the bucket's arithmetic takes for a word idle long enough to wrap, and the conversion forgives every token spent.
 *
 * <p>Deterministic: thread B's check in the old units (10 per second) is held in its clock read until the main
 * thread's conversion (to 20 per second) has read its clock; that read returns the time it had, the clock moves 1.5 s
 * and B claims all 10 tokens before the converter goes on. At that one instant the bucket of 20 admitted 10 + 1 + 19.
 */
@Timeout(60)
class ConversionClockTest
{
    private static final long MS = 1_000_000L;
    private static final long START_MS = 7_200_000;

    @TempDir
    Path dir;

    private FloodgateConfig config(final Ticker ticker, final long limit)
    {
        return FloodgateConfig.builder().file(dir.resolve("c.map")).capacity(1_000).ticker(ticker)
            .limit(Action.PUBLISH, limit, 1_000).build();
    }

    @Test
    void shouldKeepTheTokensAClaimTookWhileTheConverterWasDescheduledAfterItsClockRead() throws Exception
    {
        final ManualTicker time = new ManualTicker(START_MS * MS);
        final HookedTicker ticker = new HookedTicker(time);
        try (Floodgate gate = Floodgate.open(config(ticker, 10)))
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("k", Action.PUBLISH)); // the entry, and B's warm slot
            time.advanceMs(1_000); // full again

            final CountDownLatch heldReading = new CountDownLatch(1);
            final CountDownLatch release = new CountDownLatch(1);
            final AtomicLong byB = new AtomicLong(Long.MIN_VALUE);
            final Thread b = new Thread(() -> byB.set(gate.checkLimit("k", Action.PUBLISH, 10)));
            ticker.onNextReadFrom(b, "tryAcquire", () ->
            {
                heldReading.countDown(); // B loaded the word in the old units and waits in its clock read
                try
                {
                    assertTrue(release.await(30, TimeUnit.SECONDS));
                }
                catch (final InterruptedException ex)
                {
                    throw new AssertionError(ex);
                }
                return time.nanos();
            });
            b.start();
            assertTrue(heldReading.await(30, TimeUnit.SECONDS), "B loaded the word in the old units");

            gate.reconfigure(config(ticker, 20)); // 20 per second: the next check converts the entry
            ticker.onNextReadFrom("upgrade", () ->
            {
                time.advanceMs(1_500); // the converter is descheduled after its clock read
                release.countDown();
                try
                {
                    b.join(30_000);
                }
                catch (final InterruptedException ex)
                {
                    throw new AssertionError(ex);
                }
            });
            final long first = gate.checkLimit("k", Action.PUBLISH); // converts, then claims 1
            assertFalse(ticker.armed(), "the action ran inside the conversion's clock read");
            assertTrue(!b.isAlive());

            long admitted = (byB.get() == Floodgate.ADMITTED ? 10 : 0) + (first == Floodgate.ADMITTED ? 1 : 0);
            while (gate.checkLimit("k", Action.PUBLISH) == Floodgate.ADMITTED)
            {
                admitted++;
                assertTrue(admitted <= 100, "no end");
            }
            assertTrue(admitted <= 20, "a bucket of 20 per second admitted " + admitted + " at one instant (B: " +
                byB.get() + ", the converting check: " + first + ")");
        }
    }
}
