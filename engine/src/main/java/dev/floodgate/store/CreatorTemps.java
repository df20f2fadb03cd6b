package dev.floodgate.store;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The other creators of a table, told apart by the creator locks they hold in its lock file while they build
 * ({@link BuildLocks#claimCreator}), each in a temporary file named after its lock ({@link TableCreator#create}): the
 * leftovers of dead ones are removed, and a live one's table is waited for by a creator whose own build failed.
 * Stateless.
 */
final class CreatorTemps
{
    /** How long a creator whose build failed waits for a live rival's table: a large build on a loaded host. */
    static final long RIVAL_WAIT_NANOS = 30_000_000_000L;

    private CreatorTemps()
    {
    }

    /**
     * Removes the temporary tables of creators that died mid-build: a create cleans up in a {@code finally} that a
     * SIGKILL skips, and under {@code /dev/shm} each leftover holds its whole size in memory until reboot (found by
     * review: 156 MB per killed first start at capacity 400,000). A temporary table names the creator lock its
     * creator holds in the lock file while it builds ({@link BuildLocks#claimCreator}): when nobody holds it, the
     * kernel dropped it with its process, whatever its pid namespace (a later creator holding the same lock only
     * delays the removal). Best effort: what cannot be removed stays, and so do temporary tables named otherwise.
     *
     * @param file  a table about to be opened.
     * @param locks its lock file.
     */
    static void removeDeadTemps(final Path file, final BuildLocks locks)
    {
        // the whole name, strictly: a prefix match took table t.c1's temporary files for t's (found by review)
        final Pattern name = Pattern.compile(Pattern.quote(TableCreator.tempPrefix(file)) + "c([0-9]{1,2})\\.[0-9]+" +
            Pattern.quote(TableCreator.TEMP_SUFFIX));
        try (DirectoryStream<Path> temps = Files.newDirectoryStream(file.toAbsolutePath().getParent(),
            entry -> name.matcher(entry.getFileName().toString()).matches()))
        {
            for (final Path temp : temps)
            {
                final Matcher matched = name.matcher(temp.getFileName().toString());
                final int creator = matched.matches() ? Integer.parseInt(matched.group(1)) : -1;
                if (creator >= 0 && creator < BuildLocks.CREATORS && !locks.isCreatorHeld(creator))
                {
                    System.getLogger("dev.floodgate").log(System.Logger.Level.WARNING, "{0}: removing the " +
                        "temporary table of a process that died while it built it", temp);
                    Files.deleteIfExists(temp);
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // unreadable: the open that follows names what is wrong with the path, and a leftover is only memory
        }
    }

    /**
     * After this process's build failed: waits while another process builds the table for it to appear at the path.
     * Creators race by building one table each, and a file system with room for one and not two (a container's 64 MB
     * {@code /dev/shm} holds one table of the default capacity) failed the second at once, and its JVM did not start,
     * though the first one's table was about to be there (found by review). Call holding no creator lock.
     *
     * @return true when the table is at the path now (a rival's: the caller maps it); false when no live process is
     * building it, or none finished within {@link #RIVAL_WAIT_NANOS} (stopped), or the thread was interrupted.
     */
    static boolean awaitRivalTable(final Path file, final BuildLocks locks)
    {
        return awaitRival(() -> Files.exists(file), locks);
    }

    /**
     * As {@link #awaitRivalTable}, for a replacer whose build failed: replacers build at once too, outside the replace
     * lock, and need room for the old table and a replacement each (found by review).
     *
     * @param done true once a rival's table is in place (the path no longer names the table being replaced).
     * @return whether {@code done} held before no live process was building, or the wait ran out.
     */
    static boolean awaitRival(final BooleanSupplier done, final BuildLocks locks)
    {
        final long start = System.nanoTime();
        while (!done.getAsBoolean())
        {
            if (!rivalBuilding(locks) || System.nanoTime() - start >= RIVAL_WAIT_NANOS ||
                Thread.currentThread().isInterrupted())
            {
                return done.getAsBoolean();
            }
            LockSupport.parkNanos(10_000_000L);
        }
        return true;
    }

    private static boolean rivalBuilding(final BuildLocks locks)
    {
        if (locks.isReplaceHeld())
        {
            return true; // an older engine builds its replacement under the replace lock, holding no creator lock
        }
        for (int creator = 0; creator < BuildLocks.CREATORS; creator++)
        {
            if (locks.isCreatorHeld(creator))
            {
                return true;
            }
        }
        return false;
    }
}
