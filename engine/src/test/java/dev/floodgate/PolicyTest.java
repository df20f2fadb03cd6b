package dev.floodgate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The policy in the file: publish, adopt, reconfigure, and what a change does mid-window. */
@Timeout(60)
class PolicyTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    private final ManualTicker ticker = new ManualTicker(3_600_000 * MS); // a whole number of every window below
    private final List<Floodgate> gates = new ArrayList<>();

    @AfterEach
    void close()
    {
        gates.forEach(Floodgate::close);
        System.clearProperty(Floodgate.POLICY_PROPERTY);
    }

    private FloodgateConfig.Builder config()
    {
        return FloodgateConfig.builder().file(dir.resolve("policy.map")).capacity(10_000).ticker(ticker)
            .reclaimGraceMs(2_000);
    }

    private Floodgate open(final FloodgateConfig config)
    {
        final Floodgate gate = Floodgate.open(config);
        gates.add(gate);
        return gate;
    }

    private static int admitted(final Floodgate gate, final boolean bucket, final String id, final int attempts)
    {
        int admitted = 0;
        for (int i = 0; i < attempts; i++)
        {
            final long result = bucket ? gate.checkLimit(id, Action.PUBLISH) : gate.checkLimitInCaller(id, Action.PUBLISH);
            admitted += result == Floodgate.ADMITTED ? 1 : 0;
        }
        return admitted;
    }

    @Test
    void shouldAdoptTheFilesPolicyWhenOpenedWithAnotherConfiguration()
    {
        final Floodgate first = open(config().limit(Action.PUBLISH, 5, 60_000).build());
        final Floodgate second = open(config().limit(Action.PUBLISH, 50, 60_000).build());
        assertEquals(1, second.policy().generation());
        assertEquals(5, second.policy().rule(Action.PUBLISH).limit());
        assertEquals(5, admitted(first, true, "u", 3) + admitted(second, true, "u", 10), "one quota for both");
        assertEquals(5, admitted(first, false, "w", 30) + admitted(second, false, "w", 30));
    }

    @Test
    void shouldPublishOnOpenWhenAskedTo()
    {
        open(config().limit(Action.PUBLISH, 5, 60_000).build());
        System.setProperty(Floodgate.POLICY_PROPERTY, "publish");
        final Floodgate second = open(config().limit(Action.PUBLISH, 50, 60_000).build());
        assertEquals(2, second.policy().generation());
        assertEquals(50, gates.get(0).policy().rule(Action.PUBLISH).limit(), "the other instance sees it");
        System.setProperty(Floodgate.POLICY_PROPERTY, "sometimes");
        assertTrue(assertThrows(IllegalArgumentException.class, () -> open(config().build())).getMessage()
            .contains("floodgate.policy='sometimes'"));
    }

    /**
     * A malformed {@code FLOODGATE_POLICY} ({@code floodgate.policy}) failed {@code open} only after the table was
     * made: a broker that never started left a table with no policy behind (its {@code floodgate policy} read as
     * every limit 0), and the next broker with the typo fixed adopted nothing it had chosen (found by a review of
     * the embedder's input).
     */
    @Test
    void shouldRefuseAMalformedPolicyChoiceBeforeMakingTheFile()
    {
        System.setProperty(Floodgate.POLICY_PROPERTY, "pubish");
        final Path file = dir.resolve("new.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000).build();
        assertTrue(assertThrows(IllegalArgumentException.class, () -> open(config)).getMessage()
            .contains("floodgate.policy='pubish'"));
        assertFalse(Files.exists(file), "no table made by an open that was refused");
    }

    /** The error named {@code floodgate.policy} when {@code FLOODGATE_POLICY} held the value (found by review). */
    @Test
    void shouldNameWhereAMalformedPolicyChoiceCameFrom()
    {
        assertEquals("FLOODGATE_POLICY='pubish': expected publish or adopt", assertThrows(
            IllegalArgumentException.class, () -> PolicyPublisher.publishAsked(null, "pubish")).getMessage());
        assertEquals("floodgate.policy='pubish': expected publish or adopt", assertThrows(
            IllegalArgumentException.class, () -> PolicyPublisher.publishAsked("pubish", "publish")).getMessage());
        assertTrue(PolicyPublisher.publishAsked(null, " Publish "));
        assertFalse(PolicyPublisher.publishAsked("", "pubish"), "the property wins, and blank is the default");
        assertFalse(PolicyPublisher.publishAsked(null, null));
        assertFalse(PolicyPublisher.publishAsked(null, " Adopt "), "adopt, as README says: the default, named");
    }

    @Test
    void shouldEnforceAReconfigurationFromAnotherInstanceOnItsNextCheck()
    {
        final Floodgate a = open(config().limit(Action.PUBLISH, 5, 60_000).build());
        final Floodgate b = open(config().limit(Action.PUBLISH, 5, 60_000).build());
        assertEquals(5, admitted(b, true, "u", 10));
        a.reconfigure(config().limit(Action.PUBLISH, 0, 60_000).build());
        assertEquals(10, admitted(b, true, "u", 10), "switched off");
        a.reconfigure(config().limit(Action.PUBLISH, 5, 60_000).build());
        assertEquals(0, admitted(b, true, "u", 10), "switched on again: the tokens spent are still spent");
    }

    @Test
    void shouldChangeABucketAtOnceKeepingTheTokensSpent()
    {
        final Floodgate gate = open(config().limit(Action.PUBLISH, 10, 60_000).build());
        assertEquals(6, admitted(gate, true, "u", 6));
        gate.reconfigure(config().limit(Action.PUBLISH, 20, 60_000).build());
        assertEquals(14, admitted(gate, true, "u", 30), "20 minus the 6 spent");
        gate.reconfigure(config().limit(Action.PUBLISH, 4, 60_000).build());
        assertEquals(0, admitted(gate, true, "u", 5), "20 spent is more than the new capacity: empty");
        ticker.advanceMs(15_000);
        ticker.advanceNanos(1); // the conversion charged one unit (1 ns here) more, as its word equalled the old
        assertEquals(1, admitted(gate, true, "u", 5), "refills at the new rate: one per 15 s");
        gate.reconfigure(config().limit(Action.PUBLISH, 4, 1_000).build());
        assertEquals(0, admitted(gate, true, "u", 5), "a full debt in the old units is a full debt in the new");
        ticker.advanceMs(250);
        assertEquals(1, admitted(gate, true, "u", 5));
    }

    @Test
    void shouldChangeAWindowOnlyFromTheNextWindow()
    {
        final Floodgate gate = open(config().limit(Action.PUBLISH, 5, 1_000).build());
        ticker.advanceMs(10);
        assertEquals(3, admitted(gate, false, "u", 3));
        gate.reconfigure(config().limit(Action.PUBLISH, 10, 1_000).build());
        assertEquals(2, admitted(gate, false, "u", 10), "no fresh quota mid-window");
        ticker.advanceMs(990);
        assertEquals(10, admitted(gate, false, "u", 20), "the new limit from the next window");
        gate.reconfigure(config().limit(Action.PUBLISH, 3, 60_000).build());
        assertEquals(0, admitted(gate, false, "u", 5), "nor re-sliced caps over counts already spent");
        ticker.advanceMs(1_000);
        assertEquals(3, admitted(gate, false, "u", 5), "the new regime: 3 per minute");
        ticker.advanceMs(60_000 - 1);
        assertEquals(0, admitted(gate, false, "u", 5), "still the same minute-long window");
        ticker.advanceMs(1);
        assertEquals(3, admitted(gate, false, "u", 5));
    }

    @Test
    void shouldStartAWindowAtOnceWhenSwitchedOnFromOff()
    {
        final Floodgate gate = open(config().limit(Action.PUBLISH, 0, 1_000).build());
        ticker.advanceMs(500);
        assertEquals(10, admitted(gate, false, "u", 10), "off");
        gate.reconfigure(config().limit(Action.PUBLISH, 4, 1_000).build());
        assertEquals(4, admitted(gate, false, "u", 10), "on at once: nothing was counted while off");
        ticker.advanceMs(999);
        assertEquals(0, admitted(gate, false, "u", 10), "its first window is a whole window from the switch");
        ticker.advanceMs(1);
        assertEquals(4, admitted(gate, false, "u", 10));
    }

    @Test
    void shouldChangeAWindowFromTheNextBoundaryEvenWhenPublishedJustBeforeIt()
    {
        final Floodgate gate = open(config().limit(Action.PUBLISH, 5, 1_000).build());
        ticker.advanceMs(950);
        assertEquals(5, admitted(gate, false, "u", 6));
        gate.reconfigure(config().limit(Action.PUBLISH, 2, 1_000).build());
        assertEquals(0, admitted(gate, false, "u", 6), "the old regime until the boundary");
        ticker.advanceMs(50);
        assertEquals(2, admitted(gate, false, "u", 6), "no margin: a check published after validates its claim");
    }

    /** Issue finding 3: the planner dropped the regime still in force when a second publish came in time. */
    @Test
    void shouldKeepTheRegimeInForceWhenASecondPublishReplacesAPendingOne()
    {
        final Floodgate gate = open(config().limit(Action.PUBLISH, 100, 1_000).build());
        gate.reconfigure(config().limit(Action.PUBLISH, 1_000, 1_000).build()); // pending from the next boundary
        ticker.advanceMs(50);
        assertEquals(40, admitted(gate, false, "u", 40));
        ticker.advanceMs(900);
        gate.reconfigure(config().limit(Action.PUBLISH, 2_000, 1_000).build()); // at +950 ms
        assertEquals(60, admitted(gate, false, "u", 3_000), "the window in force still holds 100");
        ticker.advanceMs(50);
        assertEquals(2_000, admitted(gate, false, "u", 3_000), "the last publish from the boundary");
    }

    /** Issue finding 3: a switch-off and a switch-on inside the last 50 ms of a window of limit 10. */
    @Test
    void shouldHoldTheLimitInEveryWindowAcrossAnOffOnFlipJustBeforeABoundary()
    {
        final Floodgate gate = open(config().limit(Action.PUBLISH, 10, 1_000).build());
        ticker.advanceMs(100);
        assertEquals(4, admitted(gate, false, "u", 4));
        ticker.advanceMs(850);
        gate.reconfigure(config().limit(Action.PUBLISH, 0, 1_000).build());
        assertEquals(6, admitted(gate, false, "u", 1_000), "switched off from the boundary, not mid-window");
        gate.reconfigure(config().limit(Action.PUBLISH, 10, 1_000).build());
        assertEquals(0, admitted(gate, false, "u", 1_000));
        ticker.advanceMs(50);
        assertEquals(10, admitted(gate, false, "u", 1_000), "switched on again before the boundary: limit 10");
        ticker.advanceMs(1_000);
        assertEquals(10, admitted(gate, false, "u", 1_000));
    }

    @Test
    void shouldSwitchAWindowOffFromTheNextBoundaryWithoutCountingTheChecksAfterIt()
    {
        final Floodgate gate = open(config().limit(Action.PUBLISH, 10, 1_000).build());
        ticker.advanceMs(500);
        gate.reconfigure(config().limit(Action.PUBLISH, 0, 1_000).build());
        assertEquals(10, admitted(gate, false, "u", 20), "still limited until the boundary");
        ticker.advanceMs(500);
        final long before = gate.checks().get(Action.PUBLISH).total();
        assertEquals(1_000, admitted(gate, false, "u", 1_000), "off");
        assertEquals(before, gate.checks().get(Action.PUBLISH).total(), "an action switched off is not counted");
    }

    @Test
    void shouldAdmitButCountInShadowMode()
    {
        final Floodgate gate = open(config().limit(Action.PUBLISH, 3, 60_000).shadow(Action.PUBLISH, true).build());
        assertEquals(10, admitted(gate, true, "u", 10));
        assertEquals(10, admitted(gate, false, "w", 10));
        assertEquals(Floodgate.ADMITTED, gate.checkLimit("big", Action.PUBLISH, 4), "even an impossible charge");
        assertEquals(7 + 7 + 1, gate.blockedCount("u", Action.PUBLISH) + gate.blockedCount("w", Action.PUBLISH) +
            gate.blockedCount("big", Action.PUBLISH));
        final Stats.Checks checks = gate.stats().checks().get(Action.PUBLISH);
        assertEquals(new Stats.Checks(21, 0, 15, 1), checks);
        assertEquals(FloodgatePolicy.Mode.SHADOW, gate.policy().rule(Action.PUBLISH).mode());
        gate.reconfigure(FloodgatePolicy.withAssignments(gate.config(), List.of("publish.limit=3",
            "publish.window_ms=60000", "publish.mode=enforce")));
        assertEquals(0, admitted(gate, true, "u", 3), "enforcing now, and the shadow admissions were not charged:" +
            " the 3 real tokens were");
    }

    @Test
    void shouldChargeWeightsAllOrNothing()
    {
        final Floodgate gate = open(config().limit(Action.PUBLISH, 10, 60_000).build());
        for (final boolean bucket : new boolean[] {true, false})
        {
            final String id = bucket ? "b" : "w";
            final Charge three = bucket ? Charge.bucket(id, Action.PUBLISH, 3) : Charge.window(id, Action.PUBLISH, 3);
            assertEquals(Floodgate.ADMITTED, gate.charge(List.of(three)));
            assertEquals(Floodgate.ADMITTED, charge(gate, bucket, id, 3));
            assertEquals(Floodgate.ADMITTED, charge(gate, bucket, id, 3));
            assertTrue(charge(gate, bucket, id, 3) > 0, "one left, three asked");
            assertEquals(Floodgate.ADMITTED, charge(gate, bucket, id, 1), "the refused charge took nothing");
            assertEquals(Floodgate.NEVER, charge(gate, bucket, id, 11));
            assertTrue(assertThrows(IllegalArgumentException.class, () -> charge(gate, bucket, id, 0)).getMessage()
                .contains("cost=0"));
        }
        assertEquals(2, gate.stats().checks().get(Action.PUBLISH).never());
    }

    private static long charge(final Floodgate gate, final boolean bucket, final String id, final long cost)
    {
        return bucket ? gate.checkLimit(id, Action.PUBLISH, cost) : gate.checkLimitInCaller(id, Action.PUBLISH, cost);
    }

    @Test
    void shouldGiveBackEveryQuotaOfARefusedMultiQuotaCharge()
    {
        final Floodgate gate = open(config().limit(Action.PUBLISH, 10, 60_000).limit(Action.SUBSCRIBE, 4, 60_000)
            .build());
        final List<Charge> produce = List.of(Charge.bucket("user", Action.PUBLISH, 6),
            Charge.window("user", Action.PUBLISH, 6), Charge.window("user", Action.SUBSCRIBE, 3));
        assertEquals(Floodgate.ADMITTED, gate.charge(produce));
        assertTrue(gate.charge(produce) > 0, "the second charge fits none of the three");
        assertEquals(4, admitted(gate, true, "user", 10), "the bucket got its 6 back");
        assertEquals(4, admitted(gate, false, "user", 10), "so did the window");
        assertEquals(Floodgate.NEVER, gate.charge(List.of(Charge.bucket("x", Action.PUBLISH, 1),
            Charge.window("x", Action.SUBSCRIBE, 5))));
        assertEquals(10, admitted(gate, true, "x", 20), "given back after the impossible one");
    }

    @Test
    void shouldCountEveryCheckOnce()
    {
        final Floodgate gate = open(config().limit(Action.PUBLISH, 7, 60_000).limit(Action.AUTH, 3, 60_000).build());
        final int admitted = admitted(gate, true, "u", 20) + admitted(gate, false, "u", 20);
        for (int i = 0; i < 5; i++)
        {
            gate.checkLimit("10.0.0.1", Action.AUTH);
        }
        final Stats.Checks publish = gate.stats().checks().get(Action.PUBLISH);
        assertEquals(admitted, publish.admitted());
        assertEquals(40, publish.total());
        assertEquals(new Stats.Checks(3, 2, 0, 0), gate.checks().get(Action.AUTH));
        gate.close();
        final Floodgate reader = open(config().build());
        assertEquals(40, reader.checks().get(Action.PUBLISH).total(), "folded into the retired block on close");
    }

    @Test
    void shouldFitTheFilesRecordInTheSmallestTable()
    {
        final Floodgate gate = open(config().file(dir.resolve("tiny.map")).capacity(1)
            .limit(Action.PUBLISH, 2, 60_000).build());
        assertEquals(2, admitted(gate, true, "u", 2)); // no refusal: a blocked counter would not fit
        assertEquals(2, gate.checks().get(Action.PUBLISH).admitted());
    }

    @Test
    void shouldParseAndValidateAssignmentsWithTheConfigurationsMessages()
    {
        final FloodgateConfig base = config().build();
        assertEquals(new FloodgateConfig.Limit(1_000, 250), FloodgatePolicy.withAssignments(base,
            List.of("publish.limit=1000", "PUBLISH.window_ms=250")).limit(Action.PUBLISH));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FloodgatePolicy.withAssignments(base,
            List.of("auth.limit=0"))).getMessage().startsWith("auth.limit=0: expected"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FloodgatePolicy.withAssignments(base,
            List.of("publish.limit=ten"))).getMessage().startsWith("publish.limit='ten': expected a whole number from 0 to 4398046511103"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FloodgatePolicy.withAssignments(base,
            List.of("publish.colour=red"))).getMessage().contains("unknown key 'colour'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FloodgatePolicy.withAssignments(base,
            List.of("limit"))).getMessage().contains("expected action.key=value"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> FloodgatePolicy.withAssignments(base,
            List.of("publish.mode=loud"))).getMessage().contains("expected enforce or shadow"));
    }
}
