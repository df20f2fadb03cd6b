package dev.floodgate;

import dev.floodgate.store.Entry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.SegmentHolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broker thread whose interrupt status is set (a cancelled task, or code that restores the flag) makes cold
 * checks on a segment whose guard a live, stopped process holds. Each waits its 50 ms and is answered by the
 * unreachable rule, as any thread's would. It must wait as other threads wait, parked, and keep its interrupt
 * status: before, {@code LockSupport.parkNanos} returned at once while the flag was set and the wait spun on its
 * core for the whole 50 ms, on the host a stopped process already makes busy (found by a review of the cold path).
 */
@Timeout(180)
class InterruptedGuardWaitTest
{
    private static final int CHECKS = 4;

    @TempDir
    Path dir;

    @Test
    void shouldParkNotSpinWhileInterruptedAndWaitingForAHeldGuard() throws Exception
    {
        final Path file = dir.resolve("interrupted.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 1_000, FloodgateConfig.MAX_WINDOW_MS).build();
        Floodgate.open(config).close();
        final List<String> keys = new ArrayList<>();
        final int segment;
        try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            int i = 0;
            int found = -1;
            while (keys.size() < CHECKS + 1)
            {
                final String candidate = "user-" + i++;
                final int s = table.lookup().segmentOf(Entry.KIND_BUCKET, Action.PUBLISH, candidate);
                if (s != table.lookup().headerSegment() && (found < 0 || s == found))
                {
                    found = s;
                    keys.add(candidate);
                }
            }
            segment = found;
        }
        try (ChildJvm holder = ChildJvm.start(SegmentHolder.class, file.toString(), Integer.toString(segment));
            Floodgate gate = Floodgate.open(config))
        {
            holder.awaitLine("HELD", 120);
            final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            Thread.currentThread().interrupt();
            try
            {
                // the first such check loads and compiles what the unreachable answer needs: not measured
                assertTrue(gate.checkLimit(keys.get(0), Action.PUBLISH) > 0, "a new key of a held segment");
                final long cpuStart = threads.getCurrentThreadCpuTime();
                final long wallStart = System.nanoTime();
                for (int k = 1; k <= CHECKS; k++)
                {
                    assertTrue(gate.checkLimit(keys.get(k), Action.PUBLISH) > 0, "a new key of a held segment");
                }
                final long cpuMs = (threads.getCurrentThreadCpuTime() - cpuStart) / 1_000_000;
                final long wallMs = (System.nanoTime() - wallStart) / 1_000_000;
                assertTrue(Thread.interrupted(), "the caller's interrupt status was lost");
                assertEquals(CHECKS + 1, gate.stats().degraded().get(Action.PUBLISH), "degraded checks");
                // parked, each 50 ms wait costs well under a millisecond of CPU; spinning, about 50 ms each on a
                // quiet host (less beside CPU hogs, where this can only pass more easily)
                assertTrue(cpuMs < CHECKS * 50 / 4, "the interrupted waits took " + cpuMs + " ms of CPU in " +
                    wallMs + " ms: they spun instead of parking");
            }
            finally
            {
                Thread.interrupted();
            }
        }
    }
}
