package dev.floodgate;

import dev.floodgate.testkit.SoakCall;
import dev.floodgate.testkit.SoakDriver;
import dev.floodgate.testkit.WindowBound;
import dev.floodgate.testkit.WindowSoak;
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
 * The window soak ({@link WindowSoak}) for CI's time: three checker JVMs on six small window quotas of PUBLISH,
 * SUBSCRIBE and DASHBOARD_API, stopped, continued, one killed and replaced, janitor passes and policy changes (several
 * inside one window, off and on), and no window admitted more than the limit of its regime ({@link WindowBound}).
 * Longer runs: {@code WindowSoak.main}. The seed repeats the parent's choices, not the interleavings.
 */
@Timeout(240)
class WindowSoakTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    @Test
    void shouldAdmitNoWindowMoreThanItsRegimesLimitWhileJvmsArePausedKilledAndReconfigured() throws Exception
    {
        final long seed = Long.getLong("floodgate.soak.seed", System.nanoTime());
        final SoakDriver.Report report = WindowSoak.run(dir, 20, 3, seed);
        System.out.println(report.summary());
        assertEquals(List.of(), report.childErrors(), report.summary());
        assertEquals(List.of(), report.exceeded(), report.summary());
    }

    @Test
    void shouldTheBoundCatchOneTooManyInAWindowAndFollowTheRegimes()
    {
        // 5 per 100 ms for all time, then from 1,000 ms 3 per 200 ms (published at 950 ms, returned at 951 ms)
        final List<WindowBound.Regime> regimes = new ArrayList<>(List.of(
            new WindowBound.Regime(5, 100, 0, 0, Long.MIN_VALUE),
            new WindowBound.Regime(3, 200, 1_000, 1 << 20, 951 * MS)));
        final List<SoakCall> five = new ArrayList<>();
        for (int i = 0; i < 5; i++)
        {
            five.add(new SoakCall(1, 900 * MS, 901 * MS, true));
        }
        assertFalse(new WindowBound(regimes).judge(five).exceeded(), "a window's five");
        final List<SoakCall> six = new ArrayList<>(five);
        six.add(new SoakCall(1, 950 * MS, 951 * MS, true));
        assertTrue(new WindowBound(regimes).judge(six).exceeded(), "a sixth in the same window");
        six.set(5, new SoakCall(1, 850 * MS, 951 * MS, false));
        assertFalse(new WindowBound(regimes).judge(six).exceeded(), "a killed child's call in flight may be refused");
        six.set(5, new SoakCall(1, 950 * MS, 1_000 * MS + 1, true));
        assertFalse(new WindowBound(regimes).judge(six).exceeded(), "a sixth whose call reached the next window");
        final List<SoakCall> weighted = new ArrayList<>(List.of(new SoakCall(3, 1_000 * MS, 1_001 * MS, true)));
        assertFalse(new WindowBound(regimes).judge(weighted).exceeded(), "the new regime's three");
        weighted.add(new SoakCall(1, 1_150 * MS, 1_199 * MS, true));
        assertTrue(new WindowBound(regimes).judge(weighted).exceeded(), "a fourth in the new regime's 200 ms window");
        // a regime replaced while pending never came into force; one after an off regime binds from its publish on
        regimes.add(new WindowBound.Regime(4, 200, 1_000, 2 << 20, 952 * MS));
        assertFalse(new WindowBound(regimes).judge(weighted).exceeded(), "the replacement's four");
        regimes.set(1, new WindowBound.Regime(0, 100, 1_000, 1 << 20, 951 * MS));
        regimes.set(2, new WindowBound.Regime(2, 200, 1_100, 2 << 20, 1_100 * MS + 500));
        final List<SoakCall> afterOff = new ArrayList<>(List.of(new SoakCall(3, 1_100 * MS, 1_100 * MS + 400, true),
            new SoakCall(2, 1_100 * MS + 600, 1_101 * MS, true)));
        assertFalse(new WindowBound(regimes).judge(afterOff).exceeded(), "off until the publish returned, then two");
        afterOff.add(new SoakCall(1, 1_150 * MS, 1_151 * MS, true));
        assertTrue(new WindowBound(regimes).judge(afterOff).exceeded(), "a third after it");
        // an off regime pending from 1,000 ms, replaced at its epoch by 2 per 100 ms: off until the replacement returned
        final List<WindowBound.Regime> replaced = List.of(new WindowBound.Regime(5, 100, 0, 0, Long.MIN_VALUE),
            new WindowBound.Regime(0, 100, 1_000, 1 << 20, 950 * MS),
            new WindowBound.Regime(2, 100, 1_000, 2 << 20, 1_000 * MS + 500));
        final List<SoakCall> atEpoch = new ArrayList<>(List.of(new SoakCall(4, 1_000 * MS, 1_000 * MS + 100, true),
            new SoakCall(2, 1_000 * MS + 600, 1_001 * MS, true)));
        assertFalse(new WindowBound(replaced).judge(atEpoch).exceeded(), "off until the replacement, then two");
        atEpoch.add(new SoakCall(1, 1_050 * MS, 1_051 * MS, true));
        assertTrue(new WindowBound(replaced).judge(atEpoch).exceeded(), "a third after it");
    }
}
