package dev.floodgate;

import dev.floodgate.store.QuotaTable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * While a publisher of an action is stopped mid-publish (its mark set), a window check that announces a new window
 * waits for it up to its 50 ms and answers as for an unreachable entry; then "no thread of that process waits on it
 * for that action and policy again for 50 ms" (door.RegimeEntry, NOTES). {@link RegimeEntryTest} checks that with a
 * manual checker clock, which does not move during the 50 ms wait. On a clock that moves with real time, as every
 * broker's does, the stamp {@code RegimeEntry} keeps of the failed wait is the moment the wait began, 50 ms old when
 * it is stored: the suppression has already run out, and every later check waits its 50 ms again, for as long as the
 * publisher stays stopped (found by a multi-JVM soak: all four checker threads of two JVMs answered after 50-56 ms,
 * check after check, through a 0.8 s stop of a publisher).
 */
@Timeout(60)
class RegimeEntryBackoffTest
{
    private static final long MS = 1_000_000L;
    private static final long START_MS = 3_600_000;

    @TempDir
    Path dir;

    private final List<Floodgate> gates = new ArrayList<>();

    @AfterEach
    void close()
    {
        gates.forEach(Floodgate::close);
    }

    private FloodgateConfig config(final Ticker ticker, final long limit)
    {
        return FloodgateConfig.builder().file(dir.resolve("backoff.map")).capacity(1_000).ticker(ticker)
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).limit(Action.PUBLISH, limit, 1_000).build();
    }

    /** A clock that moves with real time from where it was last set, as System.nanoTime does. */
    private static final class RunningTicker implements Ticker
    {
        private volatile long offset;

        RunningTicker(final long nanos)
        {
            set(nanos);
        }

        void set(final long nanos)
        {
            offset = nanos - System.nanoTime();
        }

        @Override
        public long nanos()
        {
            return offset + System.nanoTime();
        }
    }

    @Test
    void shouldNotWaitAgainRightAfterAWaitForAStoppedPublishGaveUp() throws Exception
    {
        final ManualTicker publisherTime = new ManualTicker(START_MS * MS);
        final HookedTicker publisherTicker = new HookedTicker(publisherTime);
        final RunningTicker checkerTime = new RunningTicker(START_MS * MS);
        final Floodgate publisher = Floodgate.open(config(publisherTicker, 10));
        gates.add(publisher);
        final Floodgate checker = Floodgate.open(config(checkerTime, 10));
        gates.add(checker);
        publisherTime.set((START_MS + 1_500) * MS);
        publisher.reconfigure(config(publisherTicker, 3)); // 3 from +2000

        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread publishing = new Thread(() ->
        {
            try
            {
                publisher.reconfigure(config(publisherTicker, 4));
            }
            catch (final Throwable ex)
            {
                failure.set(ex);
            }
        }, "publisher");
        // the publisher's clock read is inside its publish, after it marked PUBLISH (PolicyPublisher.publish): held
        // there, it is a publisher stopped mid-publish
        publisherTicker.onNextRead(publishing, () ->
        {
            inside.countDown();
            try
            {
                release.await();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
            return (START_MS + 1_999) * MS;
        });
        publishing.start();
        inside.await();
        try
        {
            checkerTime.set((START_MS + 2_000) * MS); // the first window of the regime of 3; the clock runs on
            final long timeoutsBefore = guardTimeouts();
            final long retryAfter = checker.config().unreachableRetryAfterMs();
            long start = System.nanoTime();
            assertEquals(retryAfter, checker.checkLimitInCaller("u", Action.PUBLISH), "first check: unreachable");
            final long firstMs = (System.nanoTime() - start) / MS;
            assertTrue(firstMs >= 45, "the first check waited for the publish: " + firstMs + " ms");
            assertEquals(1, guardTimeouts() - timeoutsBefore);

            // the next check, right after the first gave up, is within the back-off and must not wait: a wait that
            // gives up lasts the full 50 ms of System.nanoTime (GuardWait), so a check shorter than that did not.
            // A host that descheduled this thread past the back-off makes that check wait (and stamp) again, so the
            // next one is tried; with the stamp taken when the wait began, every one waited
            boolean answeredAtOnce = false;
            for (int attempt = 0; attempt < 20 && !answeredAtOnce; attempt++)
            {
                final long begin = System.nanoTime();
                assertEquals(retryAfter, checker.checkLimitInCaller("u", Action.PUBLISH), "a later check: unreachable");
                answeredAtOnce = System.nanoTime() - begin < QuotaTable.CHECK_TIMEOUT_NANOS;
            }
            assertTrue(answeredAtOnce, "every check right after a wait gave up waited for the stopped publish again: " +
                "the failed wait was stamped with the moment it began");
        }
        finally
        {
            release.countDown();
            publishing.join(10_000);
        }
        assertNull(failure.get());
    }

    private long guardTimeouts()
    {
        try (QuotaTable table = QuotaTable.open(dir.resolve("backoff.map"), 1_000, 2, false, System.nanoTime()))
        {
            return table.guard().timeouts();
        }
    }
}
