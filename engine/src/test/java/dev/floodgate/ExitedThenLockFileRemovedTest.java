package dev.floodgate;

import dev.floodgate.store.SlotLocks;
import dev.floodgate.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A broker JVM that ends without {@code Floodgate.close} (no shutdown hook: SIGTERM and System.exit, or kill -9)
 * leaves its registry slot named in the table. With every process gone, the lock file is removed (a tmp cleaner, an
 * operator's {@code rm} of what looks stale). The first pairing of table and lock file refused every later JVM for
 * good: it counted registry words whose liveness only the removed lock file could tell (found by review). The kernel
 * says whether any process still holds a lock on the removed file ({@code /proc/locks}); none does here, and the
 * exited process's heartbeat says it has been silent longer than a live one can be.
 */
@Timeout(120)
class ExitedThenLockFileRemovedTest
{
    @TempDir
    Path tmp;

    private static FloodgateConfig config(final Path file)
    {
        return FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build();
    }

    /** Child: opens the table, checks once, and exits without closing it (a broker with no shutdown hook). */
    public static final class ExitsWithoutClose
    {
        public static void main(final String[] args)
        {
            final Floodgate gate = Floodgate.open(config(Path.of(args[0])));
            gate.checkLimit("alice", Action.PUBLISH);
            System.out.println("DONE");
            System.out.flush();
            System.exit(0);
        }
    }

    @Test
    void shouldStartOnceEveryProcessHasExitedThoughTheLockFileWasRemoved() throws Exception
    {
        // under /dev/shm where there is one: tmpfs numbers inodes from a counter, so the new lock file's is another
        // (a disk file system may hand the removed one's number out again, which pairs at once: nobody holds it)
        final Path shm = Path.of("/dev/shm");
        final Path dir = Files.isDirectory(shm) && Files.isWritable(shm) ?
            Files.createTempDirectory(shm, "floodgate-exited-") : tmp;
        try
        {
            run(dir.resolve("t.map"));
        }
        finally
        {
            try (java.util.stream.Stream<Path> files = Files.walk(dir))
            {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private void run(final Path file) throws Exception
    {
        try (ChildJvm child = ChildJvm.start(ExitsWithoutClose.class, file.toString()))
        {
            child.awaitLine("DONE", 60);
            assertEquals(0, child.awaitExit(60));
        }
        Files.delete(SlotLocks.lockFileOf(file)); // nobody runs: e.g. a tmp cleaner
        // the child's heartbeat is fresh: a JVM starting at once is refused (it might live in another pid namespace)
        assertThrows(FloodgateFileException.class, () -> Floodgate.open(config(file)).close());
        // one starting once its heartbeat is older than a process can be silent is not
        final ManualTicker later = new ManualTicker(System.nanoTime() + 11_000_000_000L);
        try (Floodgate next = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).ticker(later)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build()))
        {
            assertEquals(2, next.probe("alice", Action.PUBLISH).remaining(), "the same table, its state kept");
        }
    }
}
