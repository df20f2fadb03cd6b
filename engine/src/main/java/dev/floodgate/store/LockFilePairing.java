package dev.floodgate.store;

import dev.floodgate.FloodgateFileException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Tells a table's lock file from one made again beside it. Liveness lives in the lock file ({@link SlotLocks}),
 * a file anything removing files by path can remove while processes hold their slot locks on it: an operator's
 * {@code rm}, a tmp cleaner, systemd's {@code RemoveIPC}. The next process then made a new, empty lock file in
 * which nobody was alive, took over a live (stopped) process's guards, and wrote over its registry slot (found by
 * review). So the table records the inode of the lock file its processes use ({@link GuardRegion}'s guard line). A
 * process whose lock file is another one attaches only when no process the table names as attached may still live:
 * <ul>
 * <li>the kernel lists no lock on the recorded inode held by a process that maps the table ({@link ProcLocks}:
 * {@code /proc/locks} lists locks on removed files too; a process holds its slot lock before it registers and after it
 * leaves the registry); and</li>
 * <li>the table names no attached process, or none whose heartbeat is younger than {@link #SILENT_NANOS} (a process
 * that exited without closing, or was killed, names its slot for good).</li>
 * </ul>
 * Each alone was tried and found wrong by review: the registry alone refused every start for good once a process had
 * exited without closing; {@code /proc/locks} alone let a JVM in another pid namespace (a container of the pod: its
 * {@code /proc} lists its own namespace's locks) attach beside live processes. What remains: processes of another
 * pid namespace stopped for longer than {@link #SILENT_NANOS}; the table removed with its lock file (a new table and
 * lock file are made, see the README on {@code RemoveIPC}); a lock file removed between another process's pairing
 * and its registration, which that process's {@link #confirm} catches. Stateless.
 */
final class LockFilePairing
{
    /** A named process whose heartbeat (every 100 ms) is younger than this may live in another pid namespace. */
    static final long SILENT_NANOS = 10_000_000_000L;

    private LockFilePairing()
    {
    }

    /**
     * Pairs the table with this process's lock file before this process registers: at once when it is the table's
     * lock file already or the table has none yet (a new table, or one an engine before pairing used).
     *
     * @param nowNanos monotonic time, against which heartbeats are read.
     * @throws FloodgateFileException when the table is paired with another lock file that processes may still hold.
     */
    static void pair(final QuotaTable table, final long nowNanos)
    {
        final Path lockFile = table.locks().path();
        final long inode = table.locks().inode();
        if (inode == 0)
        {
            throw new FloodgateFileException(lockFile, "cannot be identified: its inode could not be read", null);
        }
        while (true)
        {
            final long paired = table.guard().region().pairedLockFileVolatile();
            if (paired == inode)
            {
                return;
            }
            if (paired != 0)
            {
                // a process holds its slot lock before it registers (its open, a publish in it) and after it
                // leaves the registry (its close): a lock held by a process mapping the table refuses whatever the
                // registry names (found by review: a JVM stopped mid-publish was taken over)
                final int attached = attached(table.header());
                final Boolean held = ProcLocks.heldByAProcessMapping(paired, attribute(table.file(), "unix:ino"));
                final boolean heard = attached > 0 && heard(table.header(), nowNanos);
                if (Boolean.TRUE.equals(held) || attached > 0 && (held == null || heard))
                {
                    throw replaced(table, paired, attached, held, heard);
                }
                System.getLogger("dev.floodgate").log(System.Logger.Level.WARNING, "{0} is not the lock file {1} " +
                    "was used with (inode {2}, removed and made again); no process that used it lives, so the table " +
                    "now pairs with this one", lockFile, table.file(), paired);
            }
            if (table.guard().region().pairLockFile(paired, inode))
            {
                return;
            }
        }
    }

    /**
     * Before and after this process registers: the table still pairs with its lock file. A process that paired
     * another lock file after this one's pairing attached beside it, each blind to the other's liveness; now this one
     * sees it (before it registers: a register would write over that process's registry slot, found by review).
     *
     * @throws FloodgateFileException when the table pairs with another lock file now.
     */
    static void confirm(final QuotaTable table)
    {
        final long paired = table.guard().region().pairedLockFileVolatile();
        if (paired != table.locks().inode())
        {
            throw replaced(table, paired, attached(table.header()), null, false);
        }
    }

    private static long attribute(final Path file, final String name)
    {
        try
        {
            return ((Number)Files.getAttribute(file, name)).longValue();
        }
        catch (final IOException | UnsupportedOperationException | IllegalArgumentException ex)
        {
            throw new FloodgateFileException(file, "cannot be identified (" + name + "): " + ex.getMessage(), ex);
        }
    }

    /** @return whether a process the table names beat its heartbeat less than {@link #SILENT_NANOS} ago. */
    private static boolean heard(final FileHeader header, final long nowNanos)
    {
        for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
        {
            final int base = FileHeader.processOffset(slot);
            if (header.buffer().getLongVolatile(base + FileHeader.PROCESS_OWNER) != 0 &&
                nowNanos - header.buffer().getLongVolatile(base + FileHeader.PROCESS_HEARTBEAT_NANOS) < SILENT_NANOS)
            {
                return true;
            }
        }
        return false;
    }

    private static int attached(final FileHeader header)
    {
        int attached = 0;
        for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
        {
            attached += header.buffer().getLongVolatile(FileHeader.processOffset(slot) + FileHeader.PROCESS_OWNER)
                != 0 ? 1 : 0;
        }
        return attached;
    }

    private static FloodgateFileException replaced(final QuotaTable table, final long paired, final int attached,
        final Boolean held, final boolean heard)
    {
        final String why = Boolean.TRUE.equals(held) ? "a process that maps the table holds a lock on the removed " +
            "one, inode " + paired : held == null ? "the table names " + attached + " attached process(es), and " +
            "/proc/locks cannot be read" : heard ? "a process the table names beat its heartbeat in the last " +
            SILENT_NANOS / 1_000_000_000L + " s" : "the table names " + attached + " attached process(es)";
        return new FloodgateFileException(table.locks().path(), "is not the lock file " + table.file() + " was " +
            "used with: it was removed and made again (an rm, a tmp cleaner, systemd's RemoveIPC) while processes " +
            "used the table (" + why + "): their liveness is in the removed file, and a process here could take " +
            "over their guards while they live. Stop every process that uses the table and start again (a process " +
            "that exited without closing stops counting " + SILENT_NANOS / 1_000_000_000L + " s after it ended)", null);
    }
}
