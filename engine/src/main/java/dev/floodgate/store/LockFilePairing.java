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
 * review). So the table records the inode of the lock file its processes use ({@link TableGuard}'s guard line), and
 * a process whose lock file is another one asks the kernel whether any process still holds a lock on the recorded
 * one ({@link ProcLocks}, {@code /proc/locks}, which lists locks on removed files too): while one does, the open is
 * refused; when none does, every process of the old lock file is gone (whatever the table's registry still names:
 * a process that exited without closing, or was killed), and the table pairs with the new one. Where
 * {@code /proc/locks} cannot be read, the registry decides: refused while it names any process. Stateless.
 *
 * <p>Not covered: the table removed with its lock file (a new table and lock file are made; the processes on the
 * removed ones keep enforcing there, see the README on {@code RemoveIPC}); processes of another pid namespace whose
 * locks a container's {@code /proc/locks} does not show; a lock file removed between another process's pairing and
 * its registration, which that process's {@link #confirm} catches.
 */
final class LockFilePairing
{
    private LockFilePairing()
    {
    }

    /**
     * Pairs the table with this process's lock file before this process registers: at once when it is the table's
     * lock file already or the table has none yet (a new table, or one an engine before pairing used).
     *
     * @throws FloodgateFileException when the table is paired with another lock file that processes still hold.
     */
    static void pair(final QuotaTable table)
    {
        final Path lockFile = table.locks().path();
        final long inode = table.locks().inode();
        if (inode == 0)
        {
            throw new FloodgateFileException(lockFile, "cannot be identified: its inode could not be read", null);
        }
        while (true)
        {
            final long paired = table.guard().pairedLockFileVolatile();
            if (paired == inode)
            {
                return;
            }
            if (paired != 0)
            {
                final Boolean held = ProcLocks.anyHeld(attribute(table.file(), "unix:dev"), paired);
                final int attached = attached(table.header());
                if (held == null ? attached > 0 : held)
                {
                    throw replaced(table, paired, attached, held);
                }
                System.getLogger("dev.floodgate").log(System.Logger.Level.WARNING, "{0} is not the lock file {1} " +
                    "was used with (inode {2}, removed and made again); no process holds a lock on that one, so the " +
                    "table now pairs with this one", lockFile, table.file(), paired);
            }
            if (table.guard().pairLockFile(paired, inode))
            {
                return;
            }
        }
    }

    /**
     * After this process registered: the table still pairs with its lock file. A process that paired another lock
     * file after this one's pairing attached beside it, each blind to the other's liveness; now this one sees it.
     *
     * @throws FloodgateFileException when the table pairs with another lock file now.
     */
    static void confirm(final QuotaTable table)
    {
        final long paired = table.guard().pairedLockFileVolatile();
        if (paired != table.locks().inode())
        {
            throw replaced(table, paired, attached(table.header()) - 1, null);
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
        final Boolean held)
    {
        return new FloodgateFileException(table.locks().path(), "is not the lock file " + table.file() + " was " +
            "used with: it was removed and made again (an rm, a tmp cleaner, systemd's RemoveIPC) while processes " +
            "used the table (" + (Boolean.TRUE.equals(held) ? "the kernel lists locks on the removed one, inode " +
            paired : "the table names " + attached + " attached process(es)") + "): their liveness is in the removed " +
            "file, and a process here could take over their guards while they live. Stop every process that uses " +
            "the table and start again", null);
    }
}
