package dev.floodgate.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Whether a process still holds a removed lock file, asked of the kernel: {@code /proc/locks} lists every
 * {@code fcntl}, {@code flock} and open-file-description lock with its holder and the device and inode of its file,
 * also of a file removed since (its inode lives while a lock or descriptor holds it). An inode number is reused once
 * its file is gone (at once on ext4), so a lock on that number may be another file's: it counts only when its holder
 * also maps the table ({@code /proc/<pid>/maps}), as every attached process does. Inode numbers only, not devices:
 * on btrfs {@code stat} gives a subvolume's device and {@code /proc} the file system's (found by review: a lock on
 * the removed file was never seen there); another file system's files would have to match both numbers to count.
 * Linux only; a container's {@code /proc} shows the locks and processes of its own pid namespace only. Stateless.
 */
final class ProcLocks
{
    private static final Path LOCKS = Path.of("/proc/locks");
    /** This process maps the table as it asks, and its own locks are on its own lock file: never a holder. */
    private static final String SELF = Long.toString(ProcessHandle.current().pid());

    private ProcLocks()
    {
    }

    /**
     * @param lockInode  the removed lock file's inode.
     * @param tableInode the table's inode.
     * @return whether a process other than this one that maps the table holds a lock on that inode (or one whose maps
     * cannot be read, or an open-file-description lock, which names no process); null when {@code /proc/locks} cannot
     * be read.
     */
    static Boolean heldByAProcessMapping(final long lockInode, final long tableInode)
    {
        final List<String> lines;
        try
        {
            lines = Files.readAllLines(LOCKS, StandardCharsets.US_ASCII);
        }
        catch (final IOException | SecurityException ex)
        {
            return null;
        }
        for (final String line : lines)
        {
            // "1: POSIX  ADVISORY  WRITE 2434 00:1b:777 0 0", a waiter with "->" after the number
            final String[] fields = line.replace("->", " ").trim().split("\\s+");
            if (fields.length >= 6 && inodeOf(fields[5]).equals(Long.toString(lockInode)) && !fields[4].equals(SELF) &&
                mapsTable(fields[4], tableInode))
            {
                return true;
            }
        }
        return false;
    }

    /** @return the inode of a {@code MAJOR:MINOR:INODE} field, "" when it is none. */
    private static String inodeOf(final String field)
    {
        final int colon = field.lastIndexOf(':');
        return colon < 0 ? "" : field.substring(colon + 1);
    }

    /** @return whether process {@code pid} maps a file of inode {@code tableInode} (true when it cannot be told). */
    private static boolean mapsTable(final String pid, final long tableInode)
    {
        if (pid.isEmpty() || !pid.chars().allMatch(Character::isDigit))
        {
            return true; // an open-file-description lock (-1): no process to ask
        }
        final String inode = Long.toString(tableInode);
        try (Stream<String> maps = Files.lines(Path.of("/proc", pid, "maps"), StandardCharsets.US_ASCII))
        {
            // "7f..-7f.. rw-s 00000000 00:1b 777   /dev/shm/floodgate/t.map": fields 0-4 only (paths hold spaces)
            return maps.map(l -> l.trim().split("\\s+", 6)).anyMatch(f -> f.length >= 5 && f[4].equals(inode));
        }
        catch (final IOException | SecurityException | java.io.UncheckedIOException ex)
        {
            return Files.isDirectory(Path.of("/proc", pid)); // gone since: not a holder; unreadable: maybe one
        }
    }
}
