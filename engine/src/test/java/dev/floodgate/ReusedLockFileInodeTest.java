package dev.floodgate;

import dev.floodgate.store.SlotLocks;
import dev.floodgate.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The table records its lock file's inode (LockFilePairing); a JVM whose lock file is another one asks /proc/locks
 * whether a lock is held on the recorded inode. Once the recorded lock file is removed with nobody attached, its
 * inode number is free, and a file system such as ext4 (the temp directory where /dev/shm is absent, or any
 * configured path on disk) gives it to the next file made: here another table's lock file in the same directory,
 * which its broker holds locked. The next JVM on the first table was refused, naming "locks on the removed one", for
 * as long as the other table's brokers ran, though no process used the removed lock file (found by review). A lock
 * counts now only when its holder maps the table.
 */
@Timeout(120)
class ReusedLockFileInodeTest
{
    @TempDir
    Path dir;

    private static FloodgateConfig config(final Path file)
    {
        return FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build();
    }

    private static long inode(final Path file) throws Exception
    {
        return ((Number)Files.getAttribute(file, "unix:ino")).longValue();
    }

    @Test
    void shouldStartOnceNobodyUsesTheRemovedLockFileThoughItsInodeNumberWasReused() throws Exception
    {
        final Path first = dir.resolve("first.map");
        // a broker JVM that used the table and exited (its descriptors and mappings of the lock file gone with it)
        try (ChildJvm child = ChildJvm.start(ExitedThenLockFileRemovedTest.ExitsWithoutClose.class, first.toString()))
        {
            child.awaitLine("DONE", 60);
            assertEquals(0, child.awaitExit(60));
        }
        final long removed = inode(SlotLocks.lockFileOf(first));
        Files.delete(SlotLocks.lockFileOf(first)); // nobody runs: e.g. a tmp cleaner
        // other files come and go in the directory; steered here so that the next file made gets the freed number
        // (ext4 hands out the lowest free inode of the directory's group: the fillers take the lower ones)
        boolean freedLowest = false;
        for (int i = 0; i < 20_000 && !freedLowest; i++)
        {
            final Path filler = Files.createFile(dir.resolve("filler-" + i));
            if (inode(filler) == removed)
            {
                Files.delete(filler);
                freedLowest = true;
            }
        }
        assumeTrue(freedLowest, "this file system did not hand the inode number out again");
        // another node's table in the same directory; its broker (here: this JVM) holds its lock file
        try (Floodgate other = Floodgate.open(config(dir.resolve("other.map"))))
        {
            assumeTrue(inode(SlotLocks.lockFileOf(dir.resolve("other.map"))) == removed,
                "this file system did not reuse the inode number");
            // once the exited broker's heartbeat is older than a live one's can be (LockFilePairing.SILENT_NANOS)
            final ManualTicker later = new ManualTicker(System.nanoTime() + 11_000_000_000L);
            try (Floodgate next = Floodgate.open(FloodgateConfig.builder().file(first).capacity(1_000).ticker(later)
                .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build()))
            {
                assertEquals(2, next.probe("alice", Action.PUBLISH).remaining(), "the same table, its state kept");
            }
        }
    }
}
