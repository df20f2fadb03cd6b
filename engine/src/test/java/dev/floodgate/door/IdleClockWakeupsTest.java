package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.Await;
import dev.floodgate.testkit.EngineTap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An idle Floodgate's clock thread, on the real clock: once no check has read it for its idle ticks it wakes only
 * for the heartbeat (about 10 times a second), not every millisecond, and the heartbeat goes on. Counted by the
 * kernel: the thread's {@code voluntary_ctxt_switches} (one per park) over an idle second. A loaded host only makes it
 * wake less; the bound is ten times the heartbeat's rate and a tenth of a ticking clock's.
 */
@Timeout(120)
class IdleClockWakeupsTest
{
    private static final String THREAD = "floodgate-clock";
    private static final long MAX_WAKEUPS_PER_IDLE_SECOND = 100;

    @TempDir
    Path dir;

    private static List<Path> clockTasks()
    {
        try (Stream<Path> tasks = Files.list(Paths.get("/proc/self/task")))
        {
            return tasks.filter(task -> THREAD.equals(read(task.resolve("comm")).trim())).collect(Collectors.toList());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    private static String read(final Path file)
    {
        try
        {
            return Files.readString(file);
        }
        catch (final IOException gone) // a thread that ended meanwhile
        {
            return "";
        }
    }

    private static long voluntarySwitches(final Path task)
    {
        return read(task.resolve("status")).lines().filter(line -> line.startsWith("voluntary_ctxt_switches:"))
            .mapToLong(line -> Long.parseLong(line.substring(line.indexOf(':') + 1).trim())).findFirst().orElseThrow();
    }

    @Test
    void shouldWakeOnlyForTheHeartbeatWhileNoCheckReadsTheClock() throws Exception
    {
        final List<Path> before = clockTasks();
        final Path file = dir.resolve("t.map");
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000)
                .cleanupIntervalMs(FloodgateConfig.MAX_CLEANUP_INTERVAL_MS) // the clock thread alone beats
                .limit(Action.PUBLISH, 1_000_000, 1_000).build());
            QuotaTable observer = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            for (int i = 0; i < 1_000; i++)
            {
                assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("k", Action.PUBLISH));
            }
            final CoarseClock clock = new EngineTap(gate).coarseClock();
            // the JVM names a thread's task from that thread once it first runs: a loaded host may not have run the
            // new clock thread yet (the checks read the time it published at its start), its task then named "java"
            final List<Path> tasks = new ArrayList<>();
            Await.until("this instance's clock thread, named", 60, () ->
            {
                tasks.clear();
                tasks.addAll(clockTasks());
                tasks.removeAll(before);
                return !tasks.isEmpty();
            });
            assertEquals(1, tasks.size(), "this instance's clock thread among " + clockTasks());
            final Path task = tasks.get(0);

            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!clock.asleep()) // about a second after the last check
            {
                assertTrue(System.nanoTime() - deadline < 0, "the clock of an idle instance never fell asleep");
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            final int heartbeat = FileHeader.processOffset(0) + FileHeader.PROCESS_HEARTBEAT_NANOS;
            final long beatBefore = observer.header().buffer().getLongVolatile(heartbeat);
            final long switchesBefore = voluntarySwitches(task);
            Thread.sleep(1_000); // the idle second measured, not a wait for another thread
            final long switches = voluntarySwitches(task) - switchesBefore;
            final long beatAfter = observer.header().buffer().getLongVolatile(heartbeat);

            assertTrue(clock.asleep(), "nothing read the clock, yet it woke");
            assertTrue(switches <= MAX_WAKEUPS_PER_IDLE_SECOND, "the idle clock thread woke " + switches +
                " times in a second (a ticking one wakes about 1,000 times, the heartbeat 10)");
            assertNotEquals(beatBefore, beatAfter, "no heartbeat in a second of the clock's sleep");
            System.out.println("IdleClockWakeupsTest: " + switches + " wake-ups in the idle second");
        }
    }
}
