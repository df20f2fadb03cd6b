package dev.floodgate;

import dev.floodgate.testkit.ClusterBound;
import dev.floodgate.testkit.ClusterSoak;
import dev.floodgate.testkit.SoakCall;
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
 * The cluster soak ({@link ClusterSoak}) for CI's time: three nodes of two checker JVMs each on four cluster quotas
 * in a real redis-server, both doors and charges, JVMs stopped, continued, killed and replaced, Redis stopped and
 * continued, idle leases given back; no quota admitted more than the cluster's bucket granted
 * ({@code ClusterBound}). Longer runs: {@code ClusterSoak.main}. The seed repeats the parent's choices, not the
 * interleavings.
 */
@Timeout(240)
class ClusterSoakTest
{
    @TempDir
    Path dir;

    @Test
    void shouldAdmitNoMoreThanTheClusterQuotasWhileJvmsAndRedisAreStoppedAndJvmsKilled() throws Exception
    {
        final long seed = Long.getLong("floodgate.soak.seed", System.nanoTime());
        final ClusterSoak.Report report = ClusterSoak.run(dir, 12, seed, true);
        System.out.println(report.summary());
        assertEquals(List.of(), report.childErrors(), report.summary());
        assertEquals(List.of(), report.exceeded(), report.summary());
    }

    @Test
    void shouldTheBoundCatchOneTokenTooManyAndCountWhatARedisStopWasted()
    {
        final long origin = 1_000_000_000L;
        final List<SoakCall> calls = new ArrayList<>();
        for (int i = 0; i < 10; i++)
        {
            calls.add(new SoakCall(1, origin + 1_000, origin + 2_000, true));
        }
        assertFalse(judge(calls, List.of()).exceeded(), "a full bucket's ten at once");
        calls.add(new SoakCall(1, origin + 1_000, origin + 2_000, false));
        assertFalse(judge(calls, List.of()).exceeded(), "a killed child's eleventh in flight, maybe refused");
        calls.set(10, new SoakCall(1, origin + 1_000, origin + 2_000, true));
        assertTrue(judge(calls, List.of()).exceeded(), "an eleventh admitted");
        calls.remove(10);
        for (int i = 0; i < 40; i++)
        {
            calls.add(new SoakCall(1, origin + 4_000_000_000L, origin + 4_000_000_000L, true));
        }
        assertFalse(judge(calls, List.of()).exceeded(), "4 s of refill at 10 a second");
        final List<long[]> stopped = List.<long[]>of(new long[] {origin + 500_000_000L, origin + 3_500_000_000L});
        assertTrue(judge(calls, stopped).exceeded(), "Redis stopped 3 s of them: the bucket refilled 1 s at most");
        assertFalse(judge(calls.subList(0, 30), stopped).exceeded(), "ten, 0.5 s of refill, a full bucket after " +
            "the stop and 0.5 s more: 30");
        assertTrue(judge(calls.subList(0, 31), stopped).exceeded(), "31");
    }

    private static ClusterBound.Verdict judge(final List<SoakCall> calls, final List<long[]> redisStops)
    {
        return ClusterBound.judge(10, 1_000, 0, 1_000_000_000L, 1.0, redisStops, calls);
    }
}
