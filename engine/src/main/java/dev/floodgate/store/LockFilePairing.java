package dev.floodgate.store;

import dev.floodgate.FloodgateFileException;

/**
 * Tells a table's lock file from one made again beside it. Liveness lives in the lock file ({@link SlotLocks}),
 * a file anything removing files by path can remove while processes hold their slot locks on it: an operator's
 * {@code rm}, a tmp cleaner, systemd's {@code RemoveIPC}. The next process then made a new, empty lock file in
 * which nobody was alive, took over a live (stopped) process's guards, and wrote over its registry slot (found by
 * review). So the table records the nonce of the lock file its processes use ({@link TableGuard}'s guard line), and
 * a process whose lock file is another one attaches only when the table names no attached process: their liveness
 * is in the removed file, out of reach, so the open is refused rather than guessed. Stateless.
 *
 * <p>Not covered: the table removed with its lock file (a new table and lock file are made; the processes on the
 * removed ones keep enforcing there, see the README on {@code RemoveIPC}); a lock file removed between another
 * process's pairing and its registration, which that process's {@link #confirm} catches.
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
     * @throws FloodgateFileException when the table is paired with another lock file and names attached processes.
     */
    static void pair(final QuotaTable table)
    {
        final long nonce = table.locks().nonce();
        while (true)
        {
            final long paired = table.guard().pairedLockFileVolatile();
            if (paired == nonce)
            {
                return;
            }
            if (paired != 0)
            {
                final int attached = attached(table.header());
                if (attached > 0)
                {
                    throw replaced(table, attached);
                }
                System.getLogger("dev.floodgate").log(System.Logger.Level.WARNING, "{0} is not the lock file {1} " +
                    "was used with (it was removed and made again); no process is attached, so the table now " +
                    "pairs with it", table.locks().path(), table.file());
            }
            if (table.guard().pairLockFile(paired, nonce))
            {
                return;
            }
        }
    }

    /**
     * After this process registered: the table still pairs with its lock file. A process that paired another lock
     * file after this one's pairing, seeing no attached process, attached beside it, each blind to the other's
     * liveness; now one of them sees the other registered, or this one sees the new pairing.
     *
     * @throws FloodgateFileException when the table pairs with another lock file now.
     */
    static void confirm(final QuotaTable table)
    {
        if (table.guard().pairedLockFileVolatile() != table.locks().nonce())
        {
            throw replaced(table, attached(table.header()) - 1);
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

    private static FloodgateFileException replaced(final QuotaTable table, final int attached)
    {
        return new FloodgateFileException(table.locks().path(), "is not the lock file " + table.file() + " was " +
            "used with: it was removed and made again (an rm, a tmp cleaner, systemd's RemoveIPC) while the table names " +
            attached + " attached process(es), whose liveness is in the removed one: a process here could take over " +
            "their guards while they live. Stop every process that uses the table and start again (remove the table " +
            "too if a process was killed: its slot stays named)", null);
    }
}
