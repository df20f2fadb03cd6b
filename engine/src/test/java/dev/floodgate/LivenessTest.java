package dev.floodgate;

import dev.floodgate.store.Entry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.SegmentHolder;
import dev.floodgate.testkit.Signals;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whether a guard's holder is alive is the kernel's word (a lock it drops when the process dies), never a pid's:
 * a zombie holder is dead, and a live holder in another pid namespace (a container of the same pod, sharing
 * {@code /dev/shm}) is alive whatever its pid means here.
 */
@Timeout(180)
class LivenessTest
{
    private static final long UNREACHABLE_MS = FloodgateConfig.DEFAULT_UNREACHABLE_RETRY_AFTER_MS;

    @TempDir
    Path dir;

    private static FloodgateConfig config(final Path file)
    {
        return FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build();
    }

    /** @return an identifier whose {@code kind} entry of {@code action} is not in the file record's segment. */
    private static String identifierAwayFromTheHeader(final Path file, final byte kind, final Action action)
    {
        try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            for (int i = 0; ; i++)
            {
                if (table.lookup().segmentOf(kind, action, "id-" + i) != table.lookup().headerSegment())
                {
                    return "id-" + i;
                }
            }
        }
    }

    private static int segmentOf(final Path file, final byte kind, final Action action, final String identifier)
    {
        try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            return table.lookup().segmentOf(kind, action, identifier);
        }
    }

    /** Checks until admitted: only a refusal for an unreachable entry (50 ms) may come first. */
    private static void awaitAdmitted(final java.util.function.LongSupplier check, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long result;
        while ((result = check.getAsLong()) != Floodgate.ADMITTED)
        {
            assertEquals(UNREACHABLE_MS, result, what + ": only an unreachable refusal may come first");
            assertTrue(System.nanoTime() < deadline, what + " within a minute");
        }
    }

    private static char state(final long pid) throws Exception
    {
        final String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }

    @Test
    void shouldTakeOverAGuardWhoseHolderIsAZombie() throws Exception
    {
        final Path file = dir.resolve("zombie.map");
        Floodgate.open(config(file)).close();
        final String ip = identifierAwayFromTheHeader(file, Entry.KIND_BUCKET, Action.AUTH);
        final int segment = segmentOf(file, Entry.KIND_BUCKET, Action.AUTH, ip);
        // the holder's parent becomes `sleep`, which never reaps it: killed, it stays a zombie
        try (ChildJvm parent = ChildJvm.startWrapped(List.of("sh", "-c", "\"$@\" & exec sleep 600", "sh"),
            SegmentHolder.class, file.toString(), Integer.toString(segment), "forever"))
        {
            final long holder = Long.parseLong(parent.awaitLine("HELD", 120).split(" ")[1]);
            Signals.send("KILL", holder);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (state(holder) != 'Z')
            {
                assertTrue(System.nanoTime() < deadline, "the holder became a zombie");
                LockSupport.parkNanos(1_000_000L);
            }
            assertTrue(ProcessHandle.of(holder).map(ProcessHandle::isAlive).orElse(false),
                "a zombie still reads as alive by pid: the trap this test is about");
            try (Floodgate gate = Floodgate.open(config(file)))
            {
                // on a loaded host a check may be descheduled past its 50 ms wait before it looks at the
                // holder: it is then refused for 50 ms (counted), and a later one takes the guard over
                awaitAdmitted(() -> gate.checkLimit(ip, Action.AUTH), "the zombie's guard was taken over");
                assertEquals(1, gate.stats().guardRepairs(), "and the takeover was counted");
            }
        }
    }

    @Test
    void shouldNeverTakeOverALiveHolderInAnotherPidNamespaceAndShouldOnceItDies() throws Exception
    {
        final Path file = dir.resolve("namespaces.map");
        Floodgate.open(config(file)).close();
        final String user = identifierAwayFromTheHeader(file, Entry.KIND_WINDOW, Action.PUBLISH);
        final int segment = segmentOf(file, Entry.KIND_WINDOW, Action.PUBLISH, user);
        try (Floodgate gate = Floodgate.open(config(file)))
        {
            final List<ProcessHandle> holderTree;
            try (ChildJvm holder = ChildJvm.startWrapped(List.of("unshare", "--pid", "--fork", "--kill-child"),
                SegmentHolder.class, file.toString(), Integer.toString(segment), "attached", "forever"))
            {
                final long pidThere = Long.parseLong(holder.awaitLine("HELD", 120).split(" ")[1]);
                assertNotEquals(holder.pid(), pidThere, "the holder runs in a pid namespace of its own");
                for (int i = 0; i < 3; i++)
                {
                    assertEquals(UNREACHABLE_MS, gate.checkLimitInCaller(user, Action.PUBLISH),
                        "a live holder's segment is not reached, and the check is refused, not admitted uncounted");
                }
                gate.cleanup(); // frees dead processes' registry slots: the holder's is live
                assertEquals(2, gate.stats().attachedProcesses(), "the holder's registry slot is not freed");
                assertEquals(0, gate.stats().guardRepairs(), "a live holder is never taken over");
                assertEquals(3, gate.stats().degraded().get(Action.PUBLISH), "each unreachable check is counted");
                assertEquals(3, gate.checks().get(Action.PUBLISH).refused(), "as a refusal");
                holderTree = ProcessHandle.of(holder.pid()).orElseThrow().descendants().toList();
            }
            for (final ProcessHandle process : holderTree)
            {
                process.onExit().get(30, TimeUnit.SECONDS); // unshare --kill-child takes its child with it
            }
            // the holder is gone (unshare's child is killed with it): its guard is taken over at the next check
            for (int i = 0; i < 3; i++)
            {
                awaitAdmitted(() -> gate.checkLimitInCaller(user, Action.PUBLISH), "admitted after the takeover");
            }
            assertTrue(gate.checkLimitInCaller(user, Action.PUBLISH) > UNREACHABLE_MS,
                "and the quota is exact: 3 of 3 spent, refused until the window ends");
            assertEquals(1, gate.stats().guardRepairs());
            gate.cleanup();
            assertEquals(1, gate.stats().attachedProcesses(), "the dead holder's registry slot is freed");
        }
    }
}
