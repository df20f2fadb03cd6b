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
 * also maps the table ({@code /proc/<pid>/maps}), as every attached process does. Linux only; a container's
 * {@code /proc} shows the locks and processes of its own pid namespace only. Stateless.
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
     * @param lockDevice the removed lock file's device ({@code st_dev}, as {@code unix:dev} reads it).
     * @param lockInode  the removed lock file's inode.
     * @param table      the table's device and inode, as {@code /proc/<pid>/maps} prints them.
     * @return whether a process that maps the table holds a lock on that inode (or one whose maps cannot be read,
     * or an open-file-description lock, which names no process); null when {@code /proc/locks} cannot be read.
     */
    static Boolean heldByAnAttachedProcess(final long lockDevice, final long lockInode, final String table)
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
        final String file = deviceText(lockDevice) + ":" + lockInode;
        for (final String line : lines)
        {
            // "1: POSIX  ADVISORY  WRITE 2434 00:1b:777 0 0", a waiter with "->" after the number
            final String[] fields = line.replace("->", " ").trim().split("\\s+");
            if (fields.length >= 6 && sameFile(fields[5], file) && !fields[4].equals(SELF) &&
                mapsTable(fields[4], table))
            {
                return true;
            }
        }
        return false;
    }

    /** @return {@code MAJOR:MINOR} in hex, as {@code /proc} prints a device (glibc's dev_t encoding). */
    static String deviceText(final long device)
    {
        final long major = (device >>> 8) & 0xfff | (device >>> 32) & ~0xfffL;
        final long minor = device & 0xff | (device >>> 12) & ~0xffL;
        return String.format("%02x:%02x", major, minor);
    }

    private static boolean sameFile(final String field, final String file)
    {
        final String[] parts = field.split(":");
        final String[] want = file.split(":");
        try
        {
            return parts.length == 3 && Long.parseLong(parts[0], 16) == Long.parseLong(want[0], 16) &&
                Long.parseLong(parts[1], 16) == Long.parseLong(want[1], 16) && parts[2].equals(want[2]);
        }
        catch (final NumberFormatException notAFile)
        {
            return false;
        }
    }

    /** @param table "MAJOR:MINOR inode" of the table. @return whether process {@code pid} maps it (true when unknown). */
    private static boolean mapsTable(final String pid, final String table)
    {
        if (!pid.chars().allMatch(Character::isDigit) || pid.isEmpty())
        {
            return true; // an open-file-description lock (-1): no process to ask
        }
        final String[] want = table.split(" ");
        try (Stream<String> maps = Files.lines(Path.of("/proc", pid, "maps"), StandardCharsets.US_ASCII))
        {
            return maps.map(l -> l.trim().split("\\s+")).anyMatch(f -> f.length >= 5 && f[4].equals(want[1]) &&
                sameFile(f[3] + ":" + f[4], want[0] + ":" + want[1]));
        }
        catch (final IOException | SecurityException | java.io.UncheckedIOException ex)
        {
            return Files.isDirectory(Path.of("/proc", pid)); // gone since: not a holder; unreadable: maybe one
        }
    }
}
