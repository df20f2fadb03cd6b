package dev.floodgate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a refused multi-quota charge gives back, and how it counts (found by review; each test failed before its
 * fix). Deterministic: a ticker runs an action inside the test thread's n-th clock read of a charge (after the
 * bucket quota claimed, before the next quota's claim), as a slow cold resolve, a cluster lease round trip or a
 * descheduled thread would.
 */
@Timeout(60)
class ChargeGiveBackTest
{
    private static final long MS = 1_000_000L;
    private static final long START_MS = 7_200_000; // a whole number of every window below

    @TempDir
    Path dir;

    private final ManualTicker time = new ManualTicker(START_MS * MS);
    private final CountingTicker ticker = new CountingTicker(time);
    private Floodgate gate;

    @AfterEach
    void close()
    {
        if (gate != null)
        {
            gate.close();
        }
    }

    /** Runs an action inside one thread's n-th read after arming (1-based). */
    static final class CountingTicker implements Ticker
    {
        private final ManualTicker time;
        private volatile Thread owner;
        private volatile Runnable action;
        private volatile int left;

        CountingTicker(final ManualTicker time)
        {
            this.time = time;
        }

        @Override
        public long nanos()
        {
            if (action != null && Thread.currentThread() == owner && --left == 0)
            {
                final Runnable a = action;
                action = null;
                a.run();
            }
            return time.nanos();
        }

        void onRead(final int n, final Runnable a)
        {
            owner = Thread.currentThread();
            left = n;
            action = a;
        }

        boolean armed()
        {
            return action != null;
        }
    }

    private FloodgateConfig config(final long bucketLimit)
    {
        return FloodgateConfig.builder().file(dir.resolve("g.map")).capacity(1_000).ticker(ticker)
            .limit(Action.PUBLISH, bucketLimit, 1_000).limit(Action.SUBSCRIBE, 1, 60_000).build();
    }

    /**
     * A bucket quota's claim is partly refilled by the time the charge gives it back, and another check claimed
     * on top meanwhile: the give-back subtracts the whole cost from the TAT and so also returns the part that had
     * already refilled. At one instant a bucket of capacity 10 then admits 5 + 10 tokens.
     */
    @Test
    void shouldNotGiveBackTokensThatHadAlreadyRefilled()
    {
        gate = Floodgate.open(config(10));
        assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("p", Action.SUBSCRIBE)); // the window: exhausted
        assertEquals(Floodgate.ADMITTED, gate.checkLimit("p", Action.PUBLISH)); // warm the bucket's slot
        time.advanceMs(1_000); // full again
        final AtomicLong between = new AtomicLong();
        // reads of the charge: 1 the bucket quota's now, 2 its claim, 3 the window quota's now
        ticker.onRead(3, () ->
        {
            time.advanceMs(500); // half the bucket's claim has refilled
            between.set(HookedTicker.onOtherThread(() -> gate.checkLimit("p", Action.PUBLISH, 5)));
        });
        final long charge = gate.charge(List.of(Charge.bucket("p", Action.PUBLISH, 10),
            Charge.window("p", Action.SUBSCRIBE, 1)));
        assertTrue(!ticker.armed(), "the action ran inside the charge");
        assertNotEquals(Floodgate.ADMITTED, charge, "the window quota refuses the whole");
        assertEquals(Floodgate.ADMITTED, between.get(), "5 had refilled");
        // Had the refused charge never claimed, the bucket would hold 10 - 5 = 5 now; nothing more can have refilled
        final Probe left = gate.probe("p", Action.PUBLISH);
        assertNotEquals(Floodgate.ADMITTED, gate.checkLimit("p", Action.PUBLISH, 10),
            "a capacity of 10 admitted 5 + 10 tokens at one instant (tokens left after the charge: " + left + ")");
        assertEquals(5, left.remaining(), "the tokens left after a refused charge");
    }

    /**
     * A shadow-mode quota refused before the quota that refuses the whole: the charge is refused, yet its shadow
     * quota's action counts an admitted (and shadowed) check, while the same quota placed after the refusing one
     * counts a refused check. "Each charge counts as one check of its action, with the outcome of the whole."
     */
    @Test
    void shouldCountAShadowQuotaOfARefusedChargeAsRefused()
    {
        gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("s.map")).capacity(1_000).ticker(ticker)
            .limit(Action.PUBLISH, 1, 60_000).shadow(Action.PUBLISH, true).limit(Action.SUBSCRIBE, 1, 60_000)
            .build());
        assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("p", Action.PUBLISH)); // exhausted (shadow)
        assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("p", Action.SUBSCRIBE)); // exhausted
        final Stats.Checks before = gate.checks().get(Action.PUBLISH);
        final long charge = gate.charge(List.of(Charge.window("p", Action.PUBLISH, 1),
            Charge.window("p", Action.SUBSCRIBE, 1)));
        assertNotEquals(Floodgate.ADMITTED, charge, "SUBSCRIBE is enforced and exhausted");
        final Stats.Checks after = gate.checks().get(Action.PUBLISH);
        assertEquals(0, after.admitted() - before.admitted(), "PUBLISH admitted checks for a refused charge: "
            + before + " -> " + after);
        assertEquals(1, after.refused() - before.refused(), before + " -> " + after);
    }

    /**
     * The policy changes a bucket quota's units between its claim and the end of the charge, and another check
     * converts the entry: the charge's give-back finds a new generation, the claim stays counted (carried into the
     * new units as debt), and the charge's next attempt claimed it again: a charge that should be admitted was
     * refused, and what it never got stayed counted.
     */
    @Test
    void shouldNotKeepARetriedChargesFirstClaimAcrossAConversion()
    {
        gate = Floodgate.open(config(10));
        assertEquals(Floodgate.ADMITTED, gate.checkLimit("p", Action.PUBLISH)); // warm the bucket's slot
        time.advanceMs(1_000); // full again
        final FloodgateConfig doubled = FloodgateConfig.builder().file(dir.resolve("g.map")).capacity(1_000)
            .ticker(ticker).limit(Action.PUBLISH, 20, 1_000).limit(Action.SUBSCRIBE, 100, 60_000).build();
        final AtomicLong between = new AtomicLong();
        ticker.onRead(3, () ->
        {
            gate.reconfigure(doubled); // the bucket's units change: 20 per second
            // converts the entry
            between.set(HookedTicker.onOtherThread(() -> gate.checkLimit("p", Action.PUBLISH, 1)));
        });
        final long charge = gate.charge(List.of(Charge.bucket("p", Action.PUBLISH, 10),
            Charge.window("p", Action.SUBSCRIBE, 1)));
        assertTrue(!ticker.armed(), "the action ran inside the charge");
        assertEquals(Floodgate.ADMITTED, between.get());
        // As checks by name: a full bucket of 20 less the one token taken between leaves 19; the charge takes 10
        assertEquals(Floodgate.ADMITTED, charge, "19 tokens were left for a charge of 10");
        assertEquals(9, gate.probe("p", Action.PUBLISH).remaining(), "20 - 1 - 10");
    }
}
