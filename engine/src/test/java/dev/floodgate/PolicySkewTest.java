package dev.floodgate;

import dev.floodgate.door.PolicyPlanner;
import dev.floodgate.testkit.OpenGates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.floodgate.testkit.PublishChecks.admitted;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Policy changes published by one JVM while another JVM's clock reads a tick behind (each JVM's CoarseClock ticks
 * on its own, and the publisher reads the ticker itself). After two publishes at a boundary the policy's two
 * regimes no longer cover the lagging clock's moment; numbering it by the previous regime admitted in a window
 * already spent. Found by review; both failed before (5 admitted where 0 were left). Two instances on one file,
 * each with its own ticker, model the two JVMs.
 */
@Timeout(60)
class PolicySkewTest
{
    private static final long MS = 1_000_000L;
    private static final long START_MS = 3_600_000; // a whole number of seconds: window 3600 of 1 s starts here
    /** A window number of a first 1 ms regime chosen so that a third regime lands on epoch 0, base 0. */
    private static final long N0 = -(4 * PolicyPlanner.NUMBER_JUMP - 3);

    @TempDir
    Path dir;

    private final ManualTicker publisherTime = new ManualTicker(START_MS * MS);
    private final ManualTicker checkerTime = new ManualTicker(START_MS * MS);

    @RegisterExtension
    final OpenGates gates = new OpenGates();

    private FloodgateConfig config(final ManualTicker ticker, final long limit, final long windowMs)
    {
        return FloodgateConfig.builder().file(dir.resolve("skew.map")).capacity(1_000).ticker(ticker)
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).limit(Action.PUBLISH, limit, windowMs).build();
    }

    private Floodgate open(final ManualTicker ticker, final long limit, final long windowMs)
    {
        return gates.open(config(ticker, limit, windowMs));
    }

    /**
     * 10 per 1 s window; switched off at +1500 (pending from +2000: window [+1000, +2000) stays at 10), and
     * switched on again at +2000 by a publisher whose clock reads +2000. The planner then records the off regime
     * as the one in force before +2000, dropping the limit of 10 that owns [+1000, +2000). The checking JVM's
     * clock reads +1999 (one tick behind): it admits uncounted in a window already spent.
     */
    @Test
    void shouldNotAdmitInASpentWindowWhenAnOffOnFlipAtItsEndIsSeenByALaggingClock()
    {
        final Floodgate publisher = open(publisherTime, 10, 1_000);
        final Floodgate checker = open(checkerTime, 10, 1_000);
        publisherTime.set((START_MS + 1_500) * MS);
        checkerTime.set((START_MS + 1_500) * MS);
        publisher.reconfigure(config(publisherTime, 0, 1_000)); // off from +2000
        assertEquals(10, admitted(checker, 20), "window [+1000, +2000) is spent at 10");
        publisherTime.set((START_MS + 2_000) * MS);
        publisher.reconfigure(config(publisherTime, 10, 1_000)); // on again, at the boundary
        checkerTime.set((START_MS + 1_999) * MS); // the checker's clock, one tick behind the publisher's
        assertEquals(0, admitted(checker, 5), "window [+1000, +2000) had its 10 already");
    }

    /**
     * 10 per 1 s; 5 per 1 s published at +1500 (from +2000), then 3 per 1 s published at +2000 exactly (from
     * +3000): the 10-per-window regime that owns [+1000, +2000) is dropped. A check whose clock reads +1999 under
     * the new policy numbers its window as the 5-per-second regime's window before its base (a number no regime
     * owns), finds every shard older, and starts it afresh.
     */
    @Test
    void shouldNotStartAFreshWindowBeforeTheRegimeInForceWhenTwoPublishesStraddleABoundary()
    {
        final Floodgate publisher = open(publisherTime, 10, 1_000);
        final Floodgate checker = open(checkerTime, 10, 1_000);
        publisherTime.set((START_MS + 1_500) * MS);
        checkerTime.set((START_MS + 1_500) * MS);
        publisher.reconfigure(config(publisherTime, 5, 1_000)); // 5 from +2000
        assertEquals(10, admitted(checker, 20), "window [+1000, +2000) is spent at 10");
        publisherTime.set((START_MS + 2_000) * MS);
        publisher.reconfigure(config(publisherTime, 3, 1_000)); // 3 from +3000
        checkerTime.set((START_MS + 1_999) * MS); // one tick behind the publisher
        assertEquals(0, admitted(checker, 10), "window [+1000, +2000) had its 10 already");
    }
    /**
     * 10 per 1 s; 3 per 1 s published at +1500 (pending from +2000). A checker whose clock reads +2000 spends the
     * 3 of the window [+2000, +3000); then a publisher whose clock reads +1999 (a tick behind; or one descheduled
     * between its clock read and its flip) publishes 4 per 1 s. It replaced the pending regime as if it had never
     * come into force, numbering the same window afresh: 4 more admitted, 7 in a window whose limits were 3, then 4
     * (found by review). A check now records, under the policy guard, that it began counting in a regime, and a
     * publisher that sees it treats the regime as in force: the 4 per second start at the end of its window.
     */
    @Test
    void shouldNotReplaceAPendingRegimeACheckAheadOfThePublisherBeganCountingIn()
    {
        final Floodgate publisher = open(publisherTime, 10, 1_000);
        final Floodgate checker = open(checkerTime, 10, 1_000);
        publisherTime.set((START_MS + 1_500) * MS);
        publisher.reconfigure(config(publisherTime, 3, 1_000)); // 3 from +2000
        checkerTime.set((START_MS + 2_000) * MS);
        assertEquals(3, admitted(checker, 10), "window [+2000, +3000) under the limit of 3");
        publisherTime.set((START_MS + 1_999) * MS); // a tick behind the checker
        publisher.reconfigure(config(publisherTime, 4, 1_000));
        assertEquals(0, admitted(checker, 10), "window [+2000, +3000) had its 3 already");
        checkerTime.set((START_MS + 3_000) * MS);
        assertEquals(4, admitted(checker, 10), "the next window is the new limit's");
    }

    /** As above with a shorter window published: the counted window keeps its limit to its end. */
    @Test
    void shouldKeepACountedRegimeToTheEndOfItsWindowWhatEverReplacesIt()
    {
        final Floodgate publisher = open(publisherTime, 10, 1_000);
        final Floodgate checker = open(checkerTime, 10, 1_000);
        publisherTime.set((START_MS + 1_500) * MS);
        publisher.reconfigure(config(publisherTime, 6, 1_000)); // 6 from +2000
        checkerTime.set((START_MS + 2_000) * MS);
        assertEquals(6, admitted(checker, 10), "window [+2000, +3000) under the limit of 6");
        publisherTime.set((START_MS + 1_999) * MS);
        publisher.reconfigure(config(publisherTime, 2, 500));
        checkerTime.set((START_MS + 2_500) * MS);
        assertEquals(0, admitted(checker, 10), "window [+2000, +3000) had its 6 already");
        checkerTime.set((START_MS + 3_000) * MS);
        assertEquals(2, admitted(checker, 10), "from +3000, 2 per 500 ms");
        checkerTime.set((START_MS + 3_500) * MS);
        assertEquals(2, admitted(checker, 10), "and again");
    }

    /** A publish while the pending regime is still uncounted replaces it, from the same epoch, as before. */
    @Test
    void shouldStillReplaceAPendingRegimeNoCheckCountedIn()
    {
        final Floodgate publisher = open(publisherTime, 10, 1_000);
        final Floodgate checker = open(checkerTime, 10, 1_000);
        publisherTime.set((START_MS + 1_500) * MS);
        publisher.reconfigure(config(publisherTime, 3, 1_000)); // 3 from +2000
        checkerTime.set((START_MS + 1_600) * MS);
        assertEquals(10, admitted(checker, 20), "window [+1000, +2000) under the limit of 10");
        publisherTime.set((START_MS + 1_700) * MS);
        publisher.reconfigure(config(publisherTime, 4, 1_000)); // replaces the pending 3, from +2000
        checkerTime.set((START_MS + 2_000) * MS);
        assertEquals(4, admitted(checker, 10), "window [+2000, +3000) under the limit of 4");
    }

    /**
     * A check records its entry into a regime (door.RegimeEntry) unless the regime is the first block's, which
     * ActionRule tells by base 0 at epoch 0. With negative monotonic clocks a later regime could land on base 0 at
     * epoch 0 exactly: 10 per 1 ms published at N0 gives a regime of 2 ms windows from N0 + 1 with base N0 + 2^20; a
     * publish at -2 ms then starts the next regime at epoch 0 with base 0. Checks in it never recorded the entry, so
     * a publisher a tick behind (-1 ms) replaced it as pending, and the replacement counted the window [0, 1000)
     * afresh: 3 + 4 in a window whose limits were 3, then 4 (found by review). The planner now never gives a later
     * regime base 0 at epoch 0.
     */
    @Test
    void shouldNotReplaceAnEnteredRegimeWhoseBaseAndEpochHappenToBeZero()
    {
        publisherTime.set(N0 * MS); // negative monotonic ms (ModelCheckTest uses them too)
        checkerTime.set(N0 * MS);
        final Floodgate publisher = open(publisherTime, 10, 1); // the first block: 10 per 1 ms, base 0, epoch 0
        final Floodgate checker = open(checkerTime, 10, 1);
        publisher.reconfigure(config(publisherTime, 10, 2)); // at N0: 10 per 2 ms from N0 + 1, base N0 + 2^20
        publisherTime.set(-2 * MS);
        publisher.reconfigure(config(publisherTime, 3, 1_000)); // 3 per 1 s from epoch 0, base 0
        checkerTime.set(0);
        assertEquals(3, admitted(checker, 10), "window [0, 1000) under the limit of 3");
        publisherTime.set(-1 * MS); // a tick behind the checker
        publisher.reconfigure(config(publisherTime, 4, 1_000));
        assertEquals(0, admitted(checker, 10), "window [0, 1000) had its 3 already");
    }
}
