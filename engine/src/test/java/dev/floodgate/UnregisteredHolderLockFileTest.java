package dev.floodgate;

import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.store.SlotLocks;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.Signals;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * LockFilePairing asks /proc/locks only when the table's registry names an attached process. A live process holds its
 * slot lock on the lock file without a registry entry from claimSlot to BackgroundAgent's register (all of
 * Floodgate.open's publishOrAdopt, which holds the policy guard, and preTouch), and again from unregister to the end
 * of QuotaTable.detach (up to 4 x the tool timeout waiting for operations in flight, which hold segment guards). With
 * the lock file removed meanwhile, the next JVM pairs a new one, blind to that process, and takes over its guard.
 */
@Timeout(120)
class UnregisteredHolderLockFileTest
{
    @TempDir
    Path dir;

    @Test
    void shouldRefuseToPairBesideALiveProcessThatHoldsTheRemovedLockFileButIsNotYetRegistered() throws Exception
    {
        final Path file = dir.resolve("t.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.AUTH, 3, FloodgateConfig.MAX_WINDOW_MS).build();
        Floodgate.open(config).close(); // the file has its policy
        // a JVM inside Floodgate.open's publish (slot claimed, paired, not yet registered), stopped there
        try (ChildJvm holder = ChildJvm.start(StoppedPublisherOpenTest.PolicyGuardHolder.class, file.toString()))
        {
            holder.awaitLine("HELD", 60);
            Signals.send("STOP", holder.pid());
            try
            {
                Files.delete(SlotLocks.lockFileOf(file)); // a tmp cleaner, RemoveIPC
                final Floodgate next;
                try
                {
                    next = Floodgate.open(config);
                }
                catch (final FloodgateFileException refused)
                {
                    return; // expected: a process that maps the table holds a lock on the removed lock file
                }
                try (next)
                {
                    next.reconfigure(FloodgateConfig.builder().file(file).capacity(1_000)
                        .limit(Action.AUTH, 5, FloodgateConfig.MAX_WINDOW_MS).build());
                }
                try (FloodgateReader reader = FloodgateReader.open(file))
                {
                    fail("attached beside live pid " + holder.pid() + " that holds the removed lock file and maps " +
                        "the table; then took over its policy guard: guardRepairs=" + reader.counters().guardRepairs());
                }
            }
            finally
            {
                Signals.send("KILL", holder.pid());
                holder.awaitExit(30);
            }
        }
    }
}
