package dev.floodgate;

import dev.floodgate.store.Entry;
import dev.floodgate.store.SlotLocks;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.Command;
import dev.floodgate.testkit.KeyOutsideHeader;
import dev.floodgate.testkit.SegmentHolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * LockFilePairing/ProcLocks match /proc/locks and /proc/pid/maps by the device stat() reports ("unix:dev"). On btrfs
 * stat() reports the subvolume's anonymous device while /proc/locks and /proc/pid/maps print the super block's (here
 * stat 00:28, /proc 00:27), so no lock ever matches: "held" is always false and only the 10 s heartbeat rule is left.
 * A broker stopped for longer than that (debugger, SIGSTOP, VM pause) inside an operation, whose lock file was removed,
 * is then taken over by the next JVM; on ext4/tmpfs the same JVM is refused (RemovedLockFileTest). Needs root,
 * mkfs.btrfs and loop devices; skipped otherwise.
 */
@Timeout(120)
class BtrfsLockFilePairingTest
{
    @TempDir
    Path dir;

    @Test
    void shouldSeeALockOnTheRemovedLockFileOnBtrfs() throws Exception
    {
        final Path image = dir.resolve("btrfs.img");
        final Path mount = Files.createDirectory(dir.resolve("mnt"));
        assumeTrue(Command.succeeds("truncate", "-s", "200M", image.toString()) &&
            Command.succeeds("mkfs.btrfs", "-q", image.toString()) &&
            Command.succeeds("mount", "-o", "loop", image.toString(), mount.toString()), "no btrfs loop mount here");
        try
        {
            final Path file = mount.resolve("t.map");
            Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000)
                .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build()).close();
            final int segment = KeyOutsideHeader.find(file, Entry.KIND_WINDOW, Action.PUBLISH, "id-").segment();
            try (ChildJvm holder = ChildJvm.start(SegmentHolder.class, file.toString(), Integer.toString(segment),
                "attached", "forever"))
            {
                holder.awaitLine("HELD", 60);
                Files.delete(SlotLocks.lockFileOf(file));
                // as when the holder has been stopped for longer than LockFilePairing.SILENT_NANOS
                final ManualTicker later = new ManualTicker(System.nanoTime() + 11_000_000_000L);
                final Floodgate next;
                try
                {
                    next = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).ticker(later)
                        .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build());
                }
                catch (final FloodgateFileException refused)
                {
                    return; // expected: pid holds a lock on the removed lock file and maps the table
                }
                next.close();
                fail("attached beside pid " + holder.pid() + ", which holds a lock on the removed lock file and " +
                    "maps the table (and a segment guard)");
            }
        }
        finally
        {
            Command.succeeds("umount", "-l", mount.toString());
        }
    }
}
