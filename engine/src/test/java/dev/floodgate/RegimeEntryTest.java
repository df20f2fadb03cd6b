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

    private final List<Floodgate> gates = new ArrayList<>();

    @AfterEach
    void close()
    {
        gates.forEach(Floodgate::close);
    }

    private FloodgateConfig config(final Ticker ticker, final long limit)
    {
        return FloodgateConfig.builder().file(dir.resolve("entry.map")).capacity(1_000).ticker(ticker)
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).limit(Action.PUBLISH, limit, 1_000).build();
    }

    @Test
    void shouldAnswerUnreachableRatherThanCountInARegimeAPublishInFlightMayReplace() throws Exception
    {
        final ManualTicker publisherTime = new ManualTicker(START_MS * MS);
        final HookedTicker publisherTicker = new HookedTicker(publisherTime);
        final ManualTicker checkerTime = new ManualTicker(START_MS * MS);
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
                publisher.reconfigure(config(publisherTicker, 4)); // its clock reads +1999: before the epoch
            }
            catch (final Throwable ex)
            {
                failure.set(ex);
            }
        }, "publisher");
        // the publisher's first clock read is inside the policy guard (PolicyPublisher.publish)
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

        release.countDown();
        publishing.join(10_000);
        assertNull(failure.get());
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

    private long guardTimeouts()
    {
        try (QuotaTable table = QuotaTable.open(dir.resolve("entry.map"), 1_000, 2, false, System.nanoTime()))
        {
            return table.guard().timeouts();
        }
    }
}
