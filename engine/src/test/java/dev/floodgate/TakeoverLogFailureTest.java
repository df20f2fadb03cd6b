package dev.floodgate;

import dev.floodgate.store.Entry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.FailingLog;
import dev.floodgate.testkit.SegmentHolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A process dies holding a segment guard. The next cold check on that segment takes the guard over (compare-and-set
 * to this process's owner word), and only then, still inside TableGuard.acquireSlow, logs the takeover. If that log
 * call threw (here a logging handler that fails; in production equally an OutOfMemoryError while the message is
 * built), acquireSegment throws with the guard already ours, EntryResolver's {@code segment} is still -1, and its
 * finally releases nothing. The owner word is this live process's, so nobody ever takes it over: every later cold
 * check on that segment, in every process, waits 50 ms and is answered by the unreachable rule, for as long as this
 * instance stays attached (its slot is released only at detach/close, or when the process exits). Found by review;
 * failed before. The takeover's log can no longer throw out of the repair.
 */
@Timeout(180)
class TakeoverLogFailureTest
{
    @TempDir
    Path dir;

    @Test
    void shouldReleaseATakenOverGuardWhenItsLogFails() throws Exception
    {
        final Path file = dir.resolve("takeover.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 1_000, FloodgateConfig.MAX_WINDOW_MS).build();
        Floodgate.open(config).close();
        final String first;
        final String second;
        final int segment;
        try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            int i = 0;
            String a = null;
            while (a == null)
            {
                final String candidate = "user-" + i++;
                if (table.lookup().segmentOf(Entry.KIND_BUCKET, Action.PUBLISH, candidate) !=
                    table.lookup().headerSegment())
                {
                    a = candidate;
                }
            }
            segment = table.lookup().segmentOf(Entry.KIND_BUCKET, Action.PUBLISH, a);
            String b = null;
            while (b == null)
            {
                final String candidate = "user-" + i++;
                if (table.lookup().segmentOf(Entry.KIND_BUCKET, Action.PUBLISH, candidate) == segment)
                {
                    b = candidate;
                }
            }
            first = a;
            second = b;
        }
        try (ChildJvm holder = ChildJvm.start(SegmentHolder.class, file.toString(), Integer.toString(segment)))
        {
            holder.awaitLine("HELD", 120);
            holder.kill(); // dies holding the segment's guard
        }
        try (Floodgate gate = Floodgate.open(config))
        {
            try (FailingLog failing = FailingLog.on("died holding"))
            {
                gate.checkLimit(first, Action.PUBLISH);
            }
            catch (final RuntimeException expected)
            {
                // the takeover's log failed: whatever this check answers, it must not keep the guard
            }
            final long start = System.nanoTime();
            final long result = gate.checkLimit(second, Action.PUBLISH);
            final long ms = (System.nanoTime() - start) / 1_000_000;
            assertEquals(0, gate.stats().degraded().get(Action.PUBLISH),
                "a new key of the same segment was degraded after " + ms + " ms: the guard stayed held by this " +
                    "live process");
            assertEquals(Floodgate.ADMITTED, result, "a new key of the taken-over segment");
        }
    }
}
