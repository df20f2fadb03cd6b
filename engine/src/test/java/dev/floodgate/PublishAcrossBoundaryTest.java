package dev.floodgate;

import dev.floodgate.testkit.OpenGates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.floodgate.testkit.PublishChecks.admitted;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A publish that changes a window limit starts the new regime at the end of a window of the regime in force. That
 * window cannot come from the publisher's clock alone: checks of the regime in force keep counting until the
 * generation flips, so a check whose clock reads the next window (the publisher descheduled between its clock read
 * and its flip, or a checker's clock a tick ahead across a boundary) counted in the old regime's window [B, B +
 * window), and the publish, reading B - 1, then numbered that very interval afresh as the new regime's first window:
 * it admitted the old limit plus the new one (10 + 4 against limits of 10, then 4; found by review). Checks now
 * announce each window before they first count in it, and the publisher starts after the last one announced.
 */
@Timeout(60)
class PublishAcrossBoundaryTest
{
    private static final long MS = 1_000_000L;
    private static final long START_MS = 3_600_000; // window-aligned
    private static final long B = START_MS + 1_000; // a window boundary

    @TempDir
    Path dir;

    @RegisterExtension
    final OpenGates gates = new OpenGates();

    private FloodgateConfig config(final Ticker ticker, final long limit, final long windowMs)
    {
        return FloodgateConfig.builder().file(dir.resolve("boundary.map")).capacity(1_000).ticker(ticker)
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).limit(Action.PUBLISH, limit, windowMs).build();
    }

    private Floodgate open(final Ticker ticker, final long limit, final long windowMs)
    {
        return gates.open(config(ticker, limit, windowMs));
    }

    /**
     * One JVM. 10 per 1 s. The publisher of "4 per 1 s" reads its ticker at B - 1 ms and is descheduled before its
     * flip; meanwhile (time B) another thread checks. It cannot count while the publish it may race holds the guard
     * (it answers by the unreachable rule); the publisher reads its announcement of window [B, B + 1000), so that
     * window stays the old regime's: 10 in it in all, then 4 from B + 1000. Before, the window admitted 10 before the
     * flip and 4 after it: 14.
     */
    @Test
    void shouldNotAdmitAgainInAWindowCheckedWhileThePublisherWasDescheduledAfterItsClockRead() throws Exception
    {
        final ManualTicker time = new ManualTicker((START_MS + 500) * MS);
        final HookedTicker ticker = new HookedTicker(time);
        final Floodgate gate = open(ticker, 10, 1_000);
        time.set(B * MS);
        final AtomicInteger during = new AtomicInteger();
        ticker.onNextRead(Thread.currentThread(), () ->
        {
            // the publisher read B - 1 ms; before it flips, time is B and another thread checks
            final Thread checker = new Thread(() -> during.set(admitted(gate, 20)));
            checker.start();
            try
            {
                checker.join();
            }
            catch (final InterruptedException ex)
            {
                throw new AssertionError(ex);
            }
            return (B - 1) * MS;
        });
        gate.reconfigure(config(ticker, 4, 1_000));
        time.set((B + 1) * MS);
        final int after = admitted(gate, 20);
        assertEquals(10, during.get() + after, "window [B, B + 1000): " + during.get() + " admitted while the " +
            "publish was in flight, " + after + " after it");
        time.set((B + 1_000) * MS);
        assertEquals(4, admitted(gate, 20), "the new limit from the next window");
    }

    /**
     * Two JVMs, the checker's coarse clock a tick (1 ms) ahead of the publisher's across a boundary: the checker
     * spends window [B, B + 1000) at 10, the publisher (clock B - 1) publishes 4 per 1 s; the checker then gets 4
     * more in the same window. The planner says exactness holds "as long as no check's clock is ahead of the
     * publisher's by a whole window"; here it is 1 ms.
     */
    @Test
    void shouldNotAdmitAgainInAWindowACheckerATickAheadOfThePublisherSpent()
    {
        final ManualTicker publisherTime = new ManualTicker((START_MS + 500) * MS);
        final ManualTicker checkerTime = new ManualTicker((START_MS + 500) * MS);
        final Floodgate publisher = open(publisherTime, 10, 1_000);
        final Floodgate checker = open(checkerTime, 10, 1_000);
        publisherTime.set((B - 1) * MS);
        checkerTime.set(B * MS);
        assertEquals(10, admitted(checker, 20), "window [B, B + 1000) under the limit of 10");
        publisher.reconfigure(config(publisherTime, 4, 1_000)); // from B: the end of the publisher's window
        checkerTime.set((B + 1) * MS);
        final int after = admitted(checker, 20);
        assertEquals(0, after, "window [B, B + 1000) had its 10 already; it admitted " + after + " more");
        checkerTime.set((B + 1_000) * MS);
        assertEquals(4, admitted(checker, 20), "the new limit from the next window");
    }
}
