package dev.floodgate;

import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.OpenGates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A window check announces in the file the window it is about to count in for the first time (door.RegimeEntry), so
 * no publisher replaces that regime as pending or starts a new one at that window. While a publisher changing the
 * action is stopped inside its publish (its clock still before the regime's epoch), a check that announced the
 * regime's first window cannot know whether the publisher read its announcement: it answers as for an unreachable
 * entry rather than count in a regime the publish may replace. Checks of the actions the publish does not change go
 * on. The publisher reads the announcement, so
 * the pending regime stays (it is in force from its epoch) and the new one starts a window later: no window admits
 * more than one regime's limit.
 */
@Timeout(60)
class RegimeEntryTest
{
    private static final long MS = 1_000_000L;
    private static final long START_MS = 3_600_000;

    @TempDir
    Path dir;

    @RegisterExtension
    final OpenGates gates = new OpenGates();

    private FloodgateConfig config(final Ticker ticker, final long limit)
    {
        return FloodgateConfig.builder().file(dir.resolve("entry.map")).capacity(1_000).ticker(ticker)
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).limit(Action.PUBLISH, limit, 1_000).build();
    }

    private Floodgate open(final Ticker ticker)
    {
        return gates.open(config(ticker, 10));
    }

    /** @return a publisher (10 per second) that published 3 per second from +2000, its clock moved to +1500. */
    private Floodgate publisherOfThree(final ManualTicker time, final HookedTicker ticker)
    {
        final Floodgate publisher = open(ticker);
        time.set((START_MS + 1_500) * MS);
        publisher.reconfigure(config(ticker, 3)); // 3 from +2000
        return publisher;
    }

    @Test
    void shouldAnswerUnreachableRatherThanCountInARegimeAPublishInFlightMayReplace() throws Exception
    {
        final ManualTicker publisherTime = new ManualTicker(START_MS * MS);
        final HookedTicker publisherTicker = new HookedTicker(publisherTime);
        final ManualTicker checkerTime = new ManualTicker(START_MS * MS);
        final Floodgate publisher = publisherOfThree(publisherTime, publisherTicker);
        final Floodgate checker = open(checkerTime);

        // its clock reads +1999 (before the epoch), held inside its publish
        final StoppedPublish stopped = new StoppedPublish(publisher, publisherTicker, config(publisherTicker, 4),
            (START_MS + 1_999) * MS);
        checkerTime.set((START_MS + 2_000) * MS);
        final long timeoutsBefore = guardTimeouts();
        final long retryAfter = checker.config().unreachableRetryAfterMs();
        assertEquals(retryAfter, checker.checkLimitInCaller("u", Action.PUBLISH), "first check: unreachable");
        assertEquals(retryAfter, checker.checkLimitInCaller("u", Action.PUBLISH), "second check: unreachable");
        assertEquals(1, guardTimeouts() - timeoutsBefore, "the second check did not wait for the publish again");
        // an action the publish does not change is not held up (it was, while checks waited on the policy guard)
        assertEquals(Floodgate.ADMITTED, checker.checkLimitInCaller("10.0.0.1", Action.AUTH),
            "a window check of AUTH while a publish of PUBLISH is stopped");
        assertEquals(1, guardTimeouts() - timeoutsBefore, "and it did not wait");

        stopped.close();
        int admitted = 0;
        for (int i = 0; i < 10; i++)
        {
            admitted += checker.checkLimitInCaller("u", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
        }
        assertEquals(3, admitted, "the check announced the window of 3 before the publisher read the word: it stays");
        checkerTime.set((START_MS + 3_000) * MS);
        admitted = 0;
        for (int i = 0; i < 10; i++)
        {
            admitted += checker.checkLimitInCaller("u", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
        }
        assertEquals(4, admitted, "the new 4 from the window after");
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

    /**
     * The 50 ms back-off after a given-up wait ("no thread of that process waits on it for that action and policy
     * again for 50 ms"), on a clock that moves with real time as every broker's does: the test above uses a manual
     * checker clock, which does not move during the wait. The stamp of the failed wait was the moment the wait
     * began, 50 ms old when stored: the back-off had always run out, and every later check waited its 50 ms again
     * for as long as the publisher stayed stopped (found by a multi-JVM soak: every checker thread answered after
     * 50-56 ms, check after check, through a 0.8 s stop of a publisher).
     */
    @Test
    void shouldNotWaitAgainRightAfterAWaitForAStoppedPublishGaveUp() throws Exception
    {
        final ManualTicker publisherTime = new ManualTicker(START_MS * MS);
        final HookedTicker publisherTicker = new HookedTicker(publisherTime);
        final RunningTicker checkerTime = new RunningTicker(START_MS * MS);
        final Floodgate publisher = publisherOfThree(publisherTime, publisherTicker);
        final Floodgate checker = open(checkerTime);

        try (StoppedPublish stopped = new StoppedPublish(publisher, publisherTicker, config(publisherTicker, 4),
            (START_MS + 1_999) * MS))
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
    }

    private long guardTimeouts()
    {
        try (QuotaTable table = QuotaTable.open(dir.resolve("entry.map"), 1_000, 2, false, System.nanoTime()))
        {
            return table.guard().timeouts();
        }
    }
}
