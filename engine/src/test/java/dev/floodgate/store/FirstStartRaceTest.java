package dev.floodgate.store;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two JVMs starting at once on a fresh host (no table yet). The opener makes the lock file before the table and
 * refuses to create a table while the lock file has live slots (a table removed from under live processes); both
 * steps were seen by a concurrent starter halfway (found by review, both failed):
 * <ul>
 * <li>the other starter has created the lock file but not yet given it its length: the read-only look at it throws
 * "is 0 bytes, a lock file has 1024" and the start fails (and a starter killed in that instant leaves the path
 * unopenable for good: before today the writable acquire gave the file its length);</li>
 * <li>this starter found no table, then the other linked its new table and claimed its slot before this one read
 * the slots: it is refused with "no such file, but 1 process(es) still have the table that was removed", although
 * the table is there and the other process is attached to it, the current one.</li>
 * </ul>
 */
@Timeout(120)
class FirstStartRaceTest
{
    @TempDir
    Path dir;

    /** Child: opens (creates) the table, says OPENED, and keeps it open until killed. */
    public static final class Holder
    {
        public static void main(final String[] args) throws Exception
        {
            try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(Path.of(args[0])).capacity(1_000)
                .preTouch(false).build()))
            {
                System.out.println("OPENED");
                System.out.flush();
                while (System.in.read() >= 0)
                {
                    // until the parent goes
                }
            }
        }
    }

    @Test
    void shouldOpenWhileAnotherStarterHasMadeTheLockFileButNotSizedIt() throws Exception
    {
        final Path file = dir.resolve("t.map");
        // what another JVM starting at the same moment leaves between LockFileOpener's createFile and its write of
        // the last byte (or forever, when it was killed in between)
        Files.createFile(SlotLocks.lockFileOf(file));
        try (QuotaTable table = QuotaTable.open(file, 1_000, 1, false, System.nanoTime()))
        {
            assertTrue(Files.exists(file));
        }
    }

    @Test
    void shouldNotRefuseAStarterWhoseRivalCreatedTheTableAndAttachedMeanwhile() throws Exception
    {
        final Path file = dir.resolve("t.map");
        // the rival starter made the lock file first (it names creators), as every start now does
        SlotLocks.acquire(file, false).release();
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread starter = new Thread(() ->
        {
            try (QuotaTable table = QuotaTable.open(file, 1_000, 1, false, System.nanoTime()))
            {
                assertTrue(table != null);
            }
            catch (final Throwable ex)
            {
                failure.set(ex);
            }
        }, "starter");
        try (LockFileGate gate = LockFileGate.hold())
        {
            starter.start();
            // it found no table and goes to the lock file, whose slots it counts: held up right there
            LockFileGate.awaitAtLockFile(starter);
            assertTrue(!Files.exists(file), "no table yet when the starter looked");
            // meanwhile the rival creates the table and attaches to it
            try (ChildJvm rival = ChildJvm.start(Holder.class, file.toString()))
            {
                rival.awaitLine("OPENED", 60);
                assertTrue(Files.exists(file), "the rival made the table");
                gate.release(); // the starter reads the slots now, the rival attached to the current table
                starter.join(60_000);
                assertTrue(!starter.isAlive(), "the starter finished");
            }
        }
        assertNull(failure.get(), () -> "a starter racing the first creator was refused although the table exists " +
            "and its only holder is attached to it: " + failure.get());
    }
}
