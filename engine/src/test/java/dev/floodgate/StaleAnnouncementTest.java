package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A window check announces the window it is about to count in, numbered by its policy snapshot. A check whose thread
 * stopped between its snapshot and its clock read while the policy changed numbers its clock by an old regime's
 * windows; after 2^20 of them (17 minutes of 1 ms windows) that number lies among the regime now in force, and far
 * on when that regime's windows are longer. The next publish then started its regime after that "window": years late
 * here (9 hours of 1 ms windows read as hour windows), where it belongs within the hour (found by review). A stale snapshot now announces nothing: its claim
 * fails validation and is checked again.
 */
@Timeout(60)
class StaleAnnouncementTest
{
    private static final long MS = 1_000_000L;
    private static final long HOUR_MS = 3_600_000L;

    @TempDir
    Path dir;

    private FloodgateConfig config(final Ticker ticker, final long limit, final long windowMs)
    {
        return FloodgateConfig.builder().file(dir.resolve("stale.map")).capacity(1_000).ticker(ticker)
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).limit(Action.PUBLISH, limit, windowMs).build();
    }

    @Test
    void shouldNotLetAStaleSnapshotsNumberPushTheNextRegimeIntoTheFuture() throws Exception
    {
        final ManualTicker time = new ManualTicker(10 * HOUR_MS * MS);
        final HookedTicker ticker = new HookedTicker(time);
        try (Floodgate gate = Floodgate.open(config(ticker, 1_000, 1)))
        {
            final AtomicLong staleAnswer = new AtomicLong(-1);
            final Thread stale = new Thread(() -> staleAnswer.set(gate.checkLimitInCaller("u", Action.PUBLISH)));
            // the stale check's clock read: meanwhile the policy moves to hour windows and 2^20 + 9 hours' worth of
            // 1 ms windows pass, so its snapshot numbers its clock 9 hours into the hour regime
            ticker.onNextRead(stale, () ->
            {
                gate.reconfigure(config(ticker, 1_000, HOUR_MS)); // from the next ms
                time.advanceNanos(((1L << 20) + 9 * HOUR_MS) * MS);
                return time.nanos();
            });
            stale.start();
            stale.join(30_000);
            // 1,000 per hour; a change to 5 per hour starts at the end of the hour window in force
            gate.reconfigure(config(ticker, 5, HOUR_MS));
            time.advanceNanos(2 * HOUR_MS * MS);
            int admitted = 0;
            for (int i = 0; i < 20; i++)
            {
                admitted += gate.checkLimitInCaller("v", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
            }
            assertEquals(5, admitted, "the hour after the change holds the new limit (the stale check answered " +
                staleAnswer.get() + ")");
        }
    }
}
