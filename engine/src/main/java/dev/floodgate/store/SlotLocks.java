package dev.floodgate.store;

import dev.floodgate.FloodgateFileException;

import java.io.IOException;
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
 * so a guard's owner word is alive exactly while the slot's lock is held and the slot still names that word. The
 * file is {@link LockFileOpener#LENGTH} bytes:
 *
 * <pre>
 *   0      slot 0's owner word (64)     byte 0 is also slot 0's lock byte
 *   8      slot 1's owner word (64)     byte 1 is slot 1's lock byte
 *   ...    {@link FileHeader#MAX_PROCESSES} words
 *   1000   the replace lock's byte (a table from a previous boot is replaced under it)
 *   1023   last byte, written once to give the file its length
 *   2048   {@link #CREATORS} creator lock bytes, past the file's end: a process building the table holds one
 *          ({@link #claimCreator}) and names its temporary file after it
 *   3072   {@link FileHeader#MAX_PROCESSES} claim lock bytes, past the file's end: byte 3072 + k is held by a
 *          process claiming slot k, for the claim only ({@link #claimSlot})
 * </pre>
 *
 * <p>Thread-safe. A {@link #isHeld} answer is a moment's truth: a slot found free can be claimed the next
 * instant, and a holder found alive can die the next.
 */
public final class SlotLocks
{
    private static final long REPLACE_BYTE = 1000;
    /** Creators that can build the table at once; a byte each, from {@link #CREATOR_BASE}. */
    public static final int CREATORS = 64;
    private static final long CREATOR_BASE = 2048;
    /** A claim byte per slot, from here: held by the process claiming the slot ({@link #claimSlot}). */
    private static final long CLAIM_BASE = 3072;
    private static final long TOKEN_MASK = (1L << 56) - 1;
    /** The width of a {@link #holderOf} name: 7 bits of slot (1 to 64) and 17 of token. */
    public static final int HOLDER_BITS = 24;
    private static final int HOLDER_TOKEN_BITS = 17;
    private static final long HOLDER_TOKEN_MASK = (1L << HOLDER_TOKEN_BITS) - 1;

    private final LockFile file;

    private SlotLocks(final LockFile file)
    {
        this.file = file;
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
            if (!file.tryLock(CLAIM_BASE + slot))
            {
                continue; // another claimer is at this slot
            }
            try
            {
                final long previous = tokenVolatile(slot);
                if (!isHeld(slot) && file.words().compareAndSetLong(8 * slot, previous, owner) && tryClaim(slot))
                {
                    file.words().putLongVolatile(8 * slot, owner);
                    return owner;
                }
            }
            finally
            {
                file.unlock(CLAIM_BASE + slot);
            }
        }
        throw new IllegalStateException("all " + FileHeader.MAX_PROCESSES + " process slots of " + path() +
            " are held by live processes");
    }

    /**
     * Takes a free creator byte's lock, for the time this process builds the table.
     *
     * @return the creator index, 0 to {@link #CREATORS} - 1; {@link #unclaimCreator} it when built.
     * @throws IllegalStateException when every creator byte is held.
     */
    public int claimCreator()
    {
        for (int creator = 0; creator < CREATORS; creator++)
        {
            if (file.tryLock(CREATOR_BASE + creator))
            {
                return creator;
            }
        }
        throw new IllegalStateException("all " + CREATORS + " creator locks of " + path() + " are held: " +
            CREATORS + " processes are building the table at once");
    }

    /** @param creator an index {@link #claimCreator} gave this process; its lock is dropped. */
    public void unclaimCreator(final int creator)
    {
        file.unlock(CREATOR_BASE + creator);
    }

    /**
     * @param creator a creator index.
     * @return whether a live process (this one included) holds it: false means whoever named a file after it died
     * (or finished); true may also be a later creator's.
     */
    public boolean isCreatorHeld(final int creator)
    {
        return file.isLocked(CREATOR_BASE + creator);
    }

    /** Clears and unlocks a slot claimed by {@link #claimSlot}. @param owner its owner word. */
    public void unclaimSlot(final long owner)
    {
        final int slot = slotOf(owner);
        file.words().compareAndSetLong(8 * slot, owner, 0);
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
        return file.words().getLongVolatile(8 * slot);
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
     * Runs {@code action} holding the lock file's replace lock (byte {@link #REPLACE_BYTE}), exclusive among
     * every process and thread: replacing a table file from a previous boot must happen once. Not the table's
     * own lock: Chronicle Map holds a shared lock on the table for as long as it is mapped. Held for a test and a
     * rename here, but an older engine builds a whole table under it (1.7 s measured for a first build in a cold JVM on
     * a loaded host), so the wait is a rival creator's, {@link CreatorTemps#RIVAL_WAIT_NANOS}, and then fails: a
     * stopped holder.
     *
     * @param action what to do under the lock; must not take long.
     * @throws IOException from the action or the lock, or when a process held the lock that long.
     */
    public void underReplaceLock(final IoAction action) throws IOException
    {
        file.underLock(REPLACE_BYTE, CreatorTemps.RIVAL_WAIT_NANOS, action);
    }

    /** @return whether a live process (this one included) holds the replace lock ({@link #underReplaceLock}). */
    public boolean isReplaceHeld()
    {
        return file.isLocked(REPLACE_BYTE);
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
