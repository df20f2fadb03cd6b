package dev.floodgate.store;

import java.io.IOException;

/**
 * The lock file's bytes for building a table file ({@link LockFileLayout}): a creator lock held by each process
 * building one ({@link TableCreator}), and the replace lock under which a table from a previous boot is swapped for a
 * new one. The kernel drops a dead builder's bytes, so "is anyone building?" is a lock query, never a pid.
 *
 * <p>Thread-safe. An {@link #isCreatorHeld} or {@link #isReplaceHeld} answer is a moment's truth.
 */
public final class BuildLocks
{
    /** Creators that can build the table at once. */
    public static final int CREATORS = LockFileLayout.CREATORS;

    private final LockFile file;

    BuildLocks(final LockFile file)
    {
        this.file = file;
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
            if (file.tryLock(LockFileLayout.CREATOR_BASE + creator))
            {
                return creator;
            }
        }
        throw new IllegalStateException("all " + CREATORS + " creator locks of " + file.path() + " are held: " +
            CREATORS + " processes are building the table at once");
    }

    /** @param creator an index {@link #claimCreator} gave this process; its lock is dropped. */
    public void unclaimCreator(final int creator)
    {
        file.unlock(LockFileLayout.CREATOR_BASE + creator);
    }

    /**
     * @param creator a creator index.
     * @return whether a live process (this one included) holds it: false means whoever named a file after it died
     * (or finished); true may also be a later creator's.
     */
    public boolean isCreatorHeld(final int creator)
    {
        return file.isLocked(LockFileLayout.CREATOR_BASE + creator);
    }

    /**
     * Runs {@code action} holding the replace lock, exclusive among every process and thread: replacing a table file
     * from a previous boot must happen once. Not the table's own lock: Chronicle Map holds a shared lock on the table
     * for as long as it is mapped. Held for a test and a rename here, but an older engine builds a whole table under
     * it (1.7 s measured for a first build in a cold JVM on a loaded host), so the wait is a rival creator's,
     * {@link CreatorTemps#RIVAL_WAIT_NANOS}, and then fails: a stopped holder.
     *
     * @param action what to do under the lock; must not take long.
     * @throws IOException from the action or the lock, or when a process held the lock that long.
     */
    public void underReplaceLock(final IoAction action) throws IOException
    {
        file.underLock(LockFileLayout.REPLACE_BYTE, CreatorTemps.RIVAL_WAIT_NANOS, action);
    }

    /** @return whether a live process (this one included) holds the replace lock ({@link #underReplaceLock}). */
    public boolean isReplaceHeld()
    {
        return file.isLocked(LockFileLayout.REPLACE_BYTE);
    }
}
