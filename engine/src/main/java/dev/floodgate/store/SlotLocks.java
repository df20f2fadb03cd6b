package dev.floodgate.store;

import dev.floodgate.FloodgateFileException;

import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Liveness kept by the kernel: every attached process holds an exclusive {@code fcntl} (POSIX record) lock on
 * one byte of the table's lock file, at the offset of its process slot. The kernel drops the lock when the
 * process dies, however it dies, before it becomes a zombie, and whatever pid namespace it or the observer runs
 * in (containers of one pod share {@code /dev/shm} but not pids). So "is the owner of slot k alive?" is "can I
 * not take a shared lock on byte k?", and no pid is ever interpreted. The lock file is not the table: POSIX
 * locks die with any close of the file, and Chronicle Map and readers open and close the table freely; each JVM
 * opens the lock file once ({@link LockFile}).
 *
 * <p>The lock file also holds each slot's current owner word ({@link #tokenVolatile}): a process publishes it
 * as it claims the slot, before and after taking the slot's lock ({@link #claimSlot}), and before it takes any guard,
 * so a guard's owner word is alive exactly while the slot's lock is held and the slot still names that word. Where
 * the words and bytes lie is {@link LockFileLayout}'s; the bytes for building the table are {@link BuildLocks}'.
 *
 * <p>Thread-safe. A {@link #isHeld} answer is a moment's truth: a slot found free can be claimed the next
 * instant, and a holder found alive can die the next.
 */
public final class SlotLocks
{
    private static final long TOKEN_MASK = (1L << 56) - 1;
    /** The width of a {@link #holderOf} name: 7 bits of slot (1 to 64) and 17 of token. */
    public static final int HOLDER_BITS = 24;
    private static final int HOLDER_TOKEN_BITS = 17;
    private static final long HOLDER_TOKEN_MASK = (1L << HOLDER_TOKEN_BITS) - 1;

    private final LockFile file;
    private final BuildLocks building;

    private SlotLocks(final LockFile file)
    {
        this.file = file;
        this.building = new BuildLocks(file);
    }

    /** The lock file of {@code table}: a sibling named {@code <table>.lock}. */
    public static Path lockFileOf(final Path table)
    {
        return table.resolveSibling(table.getFileName() + ".lock");
    }

    /**
     * Opens (creating when absent) the lock file of a table this process will attach to.
     *
     * @param table         the table file.
     * @param groupReadable the table's permission choice, applied to a new lock file.
     * @return a handle on the JVM's shared lock file; {@link #release} it once.
     * @throws FloodgateFileException when the lock file cannot be created or opened for writing.
     */
    public static SlotLocks acquire(final Path table, final boolean groupReadable)
    {
        return new SlotLocks(LockFile.acquire(lockFileOf(canonical(table)), groupReadable));
    }

    /**
     * Opens the lock file of a table for liveness tests only (shared locks), without creating or writing it.
     *
     * @param table the table file.
     * @return the handle, or null when the table has no lock file (no process ever attached under this format).
     * @throws FloodgateFileException when the lock file exists but cannot be read.
     */
    public static SlotLocks acquireReadOnly(final Path table)
    {
        final LockFile file = LockFile.acquireReadOnly(lockFileOf(canonical(table)));
        return file == null ? null : new SlotLocks(file);
    }

    /**
     * One name per table, whatever the spelling: {@code dir/./t.map}, {@code dir/../dir/t.map} or a symlink made two
     * handles on one lock file in one JVM, and closing one drops every fcntl lock the process holds on the file
     * (POSIX), so a live, open instance read as dead to the node (found by review); a symlink to the table also made
     * two lock files, each blind to the other's holders.
     */
    static Path canonical(final Path table)
    {
        final Path absolute = table.toAbsolutePath().normalize();
        try
        {
            if (java.nio.file.Files.exists(absolute))
            {
                return absolute.toRealPath();
            }
            final Path parent = absolute.getParent();
            return parent == null ? absolute : parent.toRealPath().resolve(absolute.getFileName());
        }
        catch (final java.io.IOException ex)
        {
            return absolute; // the open that follows names what is wrong with the path
        }
    }

    /** Drops this handle; the lock file closes with the JVM's last, and never while a slot lock is held. */
    public void release()
    {
        file.release();
    }

    /** @return the inode of the lock file this JVM holds open (0 when it could not be read). */
    long inode()
    {
        return file.inode();
    }

    /** @return the lock file. */
    public Path path()
    {
        return file.path();
    }

    /** @return the bytes of this lock file for building the table, on the same handle. */
    public BuildLocks building()
    {
        return building;
    }

    /**
     * Claims the first free slot for this process: under the slot's claim byte, publishes a fresh owner word in it,
     * then takes its lock, then publishes the word again (a claimer of an older engine, which locks first and takes no
     * claim byte, may have written its own meanwhile).
     *
     * <p>The word goes in before the lock: a process that died holding a guard leaves its word in its slot, and a
     * claimer that took the lock first and was stopped before its word went in made that dead word read as alive
     * (the slot held, still naming it), so the guard was never taken over while the claimer stayed stopped (found by
     * review). The claim byte keeps a second claimer off the slot meanwhile: without it, one that read the first's
     * word and found the slot unlocked just before the first locked it replaced that word by its own and moved on,
     * and the first, live and holding the slot, read as dead to every guard it took (found by review of that fix). A
     * claimer finding the byte held takes the next slot, so one stopped there keeps others off one slot, no more. The
     * compare-and-set against the word read under the byte is for an older engine's claimer: it writes first, and
     * this one moves on.
     *
     * @return the owner word (slot index and a random token, never 0); {@link #slotOf} gives the slot.
     * @throws IllegalStateException when every slot belongs to a live process.
     */
    public long claimSlot()
    {
        for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
        {
            long token;
            do
            {
                token = ThreadLocalRandom.current().nextLong() & TOKEN_MASK;
            }
            while (token == 0);
            final long owner = ((long)(slot + 1) << 56) | token;
            if (!file.tryLock(LockFileLayout.CLAIM_BASE + slot))
            {
                continue; // another claimer is at this slot
            }
            try
            {
                final long previous = tokenVolatile(slot);
                if (!isHeld(slot) &&
                    file.words().compareAndSetLong(LockFileLayout.slotWordOffset(slot), previous, owner) &&
                    tryClaim(slot))
                {
                    file.words().putLongVolatile(LockFileLayout.slotWordOffset(slot), owner);
                    return owner;
                }
            }
            finally
            {
                file.unlock(LockFileLayout.CLAIM_BASE + slot);
            }
        }
        throw new IllegalStateException("all " + FileHeader.MAX_PROCESSES + " process slots of " + path() +
            " are held by live processes");
    }

    /** Clears and unlocks a slot claimed by {@link #claimSlot}. @param owner its owner word. */
    public void unclaimSlot(final long owner)
    {
        final int slot = slotOf(owner);
        file.words().compareAndSetLong(LockFileLayout.slotWordOffset(slot), owner, 0);
        unclaim(slot);
    }

    /** @param owner an owner word. @return its slot index, or -1 when the word names no slot. */
    public static int slotOf(final long owner)
    {
        final int slot = (int)(owner >>> 56) - 1;
        return slot >= 0 && slot < FileHeader.MAX_PROCESSES ? slot : -1;
    }

    /**
     * @param owner an owner word.
     * @return a {@value #HOLDER_BITS}-bit name of it, for a word with no room for the whole owner (a lease entry's
     * refill word): its slot and the low bits of its token. Two registrations of one slot share a name once in
     * 2^{@value #HOLDER_TOKEN_BITS}: such a holder reads as alive, which only delays a takeover, never hastens it.
     */
    public static long holderOf(final long owner)
    {
        return (long)(slotOf(owner) + 1) << HOLDER_TOKEN_BITS | owner & HOLDER_TOKEN_MASK;
    }

    /**
     * @param holder a name from {@link #holderOf}.
     * @return true when a live process holds the slot it names under that registration (this one included);
     * a kernel lock query, so a system call: ask only when the answer matters.
     */
    public boolean isHolderAlive(final long holder)
    {
        final int slot = (int)(holder >>> HOLDER_TOKEN_BITS) - 1;
        if (slot < 0 || slot >= FileHeader.MAX_PROCESSES)
        {
            return false;
        }
        final long token = tokenVolatile(slot);
        return slotOf(token) == slot && (token & HOLDER_TOKEN_MASK) == (holder & HOLDER_TOKEN_MASK) && isHeld(slot);
    }

    /** @param slot a slot. @return the owner word it holds now, volatile read; 0 when none. */
    public long tokenVolatile(final int slot)
    {
        return file.words().getLongVolatile(LockFileLayout.slotWordOffset(slot));
    }

    /**
     * @param owner an owner word, as a guard recorded it.
     * @return true when the registration it names is still live: its process holds the slot and the slot still
     * names this word (a later owner of the slot would have published another).
     */
    public boolean isAlive(final long owner)
    {
        final int slot = slotOf(owner);
        return slot >= 0 && tokenVolatile(slot) == owner && isHeld(slot);
    }

    /**
     * Takes slot {@code slot}'s lock for this process, without waiting. Only {@link #claimSlot}'s: a slot lock held
     * by anyone else, however briefly, makes the word left in the slot read as alive.
     *
     * @param slot a process slot.
     * @return true when this process now holds it; false when another process (or instance here) does.
     */
    private boolean tryClaim(final int slot)
    {
        return file.tryLock(slot);
    }

    /** @param slot a slot this process claimed; its lock is dropped. */
    private void unclaim(final int slot)
    {
        file.unlock(slot);
    }

    /**
     * @param slot a process slot.
     * @return true when a live process (this one included) holds the slot's lock.
     */
    public boolean isHeld(final int slot)
    {
        return file.isLocked(slot);
    }
}
