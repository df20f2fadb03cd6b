package dev.floodgate.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Whether any process holds a lock on a file, asked of the kernel through {@code /proc/locks}: it lists every
 * {@code fcntl}, {@code flock} and open-file-description lock with the device and inode of its file, also of a file
 * removed since (its inode lives while a lock or descriptor holds it). So the holders of a removed lock file can
 * be told from none, by the kernel and without a pid. Linux only; a kernel that shows a pid namespace's own locks
 * only (a container's {@code /proc}) hides the holders in other namespaces. Stateless.
 */
final class ProcLocks
{
    private static final Path LOCKS = Path.of("/proc/locks");

    private ProcLocks()
    {
    }

    /**
     * @param device the file system's device ({@code st_dev}, as {@code unix:dev} reads it).
     * @param inode  the file's inode.
     * @return whether a lock on that file is listed; null when {@code /proc/locks} cannot be read.
     */
    static Boolean anyHeld(final long device, final long inode)
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
        // glibc's dev_t encoding; /proc/locks prints MAJOR:MINOR in hex
        final long major = (device >>> 8) & 0xfff | (device >>> 32) & ~0xfffL;
        final long minor = device & 0xff | (device >>> 12) & ~0xffL;
        final String file = Long.toHexString(major) + ":" + Long.toHexString(minor) + ":" + inode;
        for (final String line : lines)
        {
            for (final String field : line.trim().split("\\s+"))
            {
                if (matches(field, file))
                {
                    return true;
                }
            }
        }
        return false;
    }

    /** The kernel pads each of major and minor to two hex digits: {@code 00:1b:777}. */
    private static boolean matches(final String field, final String file)
    {
        final String[] parts = field.split(":");
        final String[] want = file.split(":");
        if (parts.length != 3)
        {
            return false;
        }
        try
        {
            return Long.parseLong(parts[0], 16) == Long.parseLong(want[0], 16) &&
                Long.parseLong(parts[1], 16) == Long.parseLong(want[1], 16) && parts[2].equals(want[2]);
        }
        catch (final NumberFormatException notAFile)
        {
            return false;
        }
    }
}
