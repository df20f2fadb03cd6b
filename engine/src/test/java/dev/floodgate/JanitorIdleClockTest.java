package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Review (review-bucket): the janitor judges a bucket idle, under the segment's write lock, with a clock read
 * <em>before</em> it loads the TAT word (and the fingerprint), while checks claim lock-free. A janitor descheduled
 * (or its process stopped) after that read for over two windows, while another check empties the bucket, judges
 * the word with a stale "now": the debt reads as more than twice the capacity, which the bucket's arithmetic takes
 * for a wrapped idle word, so the entry is tombstoned with the claim inside its fingerprint and reaped a grace
 * period later, its debt with it. The next check finds a full bucket: 10 + 1 admitted by a limit of 10 a minute,
 * 2 s apart.
 *
 * <p>Deterministic: the ticker hands the janitor's read under the lock the time it had, then moves the clock 150 s
 * and runs a check of 10 on another thread before the read returns.
 */
@Timeout(60)
class JanitorIdleClockTest
{
    private static final long MS = 1_000_000L;
    private static final long START_MS = 7_200_000;

    @TempDir
    Path dir;

    @Test
    void shouldNotReapABucketAClaimEmptiedWhileTheJanitorWasDescheduledAfterItsClockRead()
    {
        final ManualTicker time = new ManualTicker(START_MS * MS);
        final HookedTicker ticker = new HookedTicker(time);
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("j.map")).capacity(1_000)
            .ticker(ticker).limit(Action.AUTH, 10, 60_000)
            .cleanupIntervalMs(FloodgateConfig.MAX_CLEANUP_INTERVAL_MS) // no background pass: cleanup() drives it
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).build()))
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("k", Action.AUTH)); // the entry, and a warm slot
            time.advanceMs(60_000); // full again: idle

            final AtomicLong between = new AtomicLong();
            ticker.onNextReadFrom("lambda$runPass", () ->
            {
                time.advanceMs(150_000); // the janitor is descheduled after its clock read, for 2.5 windows
                // all of it, lock-free
                between.set(HookedTicker.onOtherThread(() -> gate.checkLimit("k", Action.AUTH, 10)));
            });
            gate.cleanup();
            assertFalse(ticker.armed(), "the action ran inside the janitor's read under the lock");
            assertEquals(Floodgate.ADMITTED, between.get(), "a full bucket gave all 10");

            time.advanceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS); // no check of k during the grace period
            gate.cleanup();
            assertNotEquals(Floodgate.ADMITTED, gate.checkLimit("k", Action.AUTH),
                "10 of 10 a minute claimed 2 s ago, and admitted again: the janitor reaped the bucket with its debt");
        }
    }
}
