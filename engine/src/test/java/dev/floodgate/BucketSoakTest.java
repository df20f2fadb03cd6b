package dev.floodgate;

import dev.floodgate.testkit.BucketBound;
import dev.floodgate.testkit.BucketSoak;
import dev.floodgate.testkit.SoakCall;
import dev.floodgate.testkit.SoakDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The bucket soak ({@link BucketSoak}) for CI's time: three checker JVMs on four small bucket quotas, stopped,
 * continued, one killed and replaced, janitor passes and policy changes, and no quota admitted more than its
 * regimes' capacities and refill allow over any interval ({@link BucketBound}). Longer runs:
 * {@code BucketSoak.main}. The seed repeats the parent's choices, not the interleavings.
 */
@Timeout(240)
class BucketSoakTest
{
    @TempDir
    Path dir;

    @Test
    void shouldAdmitNoQuotaMoreThanItsRegimesAllowWhileJvmsArePausedKilledAndReconfigured() throws Exception
    {
        final long seed = Long.getLong("floodgate.soak.seed", System.nanoTime());
        final SoakDriver.Report report = BucketSoak.run(dir, 20, 3, seed);
        System.out.println(report.summary());
        assertEquals(List.of(), report.childErrors(), report.summary());
        assertEquals(List.of(), report.exceeded(), report.summary());
    }

    @Test
    void shouldTheBoundCatchOneTokenTooManyAndSkipAnOffRegime()
    {
        final List<BucketBound.Regime> regimes = new ArrayList<>(List.of(
            new BucketBound.Regime(5, 1_000, Long.MIN_VALUE, Long.MIN_VALUE)));
        final List<SoakCall> five = new ArrayList<>();
        for (int i = 0; i < 5; i++)
        {
            five.add(new SoakCall(1, 1_000_000_000L, 1_000_000_100L, true));
        }
        assertFalse(new BucketBound(regimes).judge(five).exceeded(), "a full bucket's five at once");
        final List<SoakCall> six = new ArrayList<>(five);
        six.add(new SoakCall(1, 1_000_000_000L, 1_000_000_100L, false));
        assertFalse(new BucketBound(regimes).judge(six).exceeded(), "a killed child's sixth in flight, maybe refused");
        six.set(5, new SoakCall(1, 1_000_000_000L, 1_000_000_100L, true));
        assertTrue(new BucketBound(regimes).judge(six).exceeded(), "a sixth admitted");
        six.set(5, new SoakCall(1, 1_000_000_000L, 1_200_000_100L, true));
        assertFalse(new BucketBound(regimes).judge(six).exceeded(), "a sixth a refill of 200 ms allows");
        regimes.add(new BucketBound.Regime(10, 1_000, 1_050_000_000L, 1_060_000_000L));
        final List<SoakCall> raised = new ArrayList<>(five);
        for (int i = 0; i < 5; i++)
        {
            raised.add(new SoakCall(1, 1_100_000_000L, 1_100_000_100L, true));
        }
        assertFalse(new BucketBound(regimes).judge(raised).exceeded(), "a raised capacity's five more");
        raised.add(new SoakCall(1, 1_100_000_000L, 1_100_000_100L, true));
        assertTrue(new BucketBound(regimes).judge(raised).exceeded(), "one more than the raise and 100 ms of refill");
        regimes.set(1, new BucketBound.Regime(0, 1_000, 1_050_000_000L, 1_060_000_000L));
        final BucketBound.Verdict off = new BucketBound(regimes).judge(raised);
        assertFalse(off.exceeded(), "an off regime admits uncounted");
        assertTrue(off.skipped() > 0);
    }
}
