package dev.floodgate.testkit;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

/**
 * Runs a system command a test needs for its setting ({@code mount}, {@code umount -l}, {@code mkfs.btrfs}), its
 * output discarded. Bounded: a command that does not finish within a minute is killed (with anything it started)
 * and fails the test, instead of holding the build until Surefire's fork timeout.
 */
public final class Command
{
    private static final long BOUND_SECONDS = 60;

    private Command()
    {
    }

    /**
     * @param command the command and its arguments.
     * @return whether it exited with 0; false when it cannot be started (a machine without it: a test that needs
     * it skips, as where it fails).
     * @throws AssertionError when it does not finish within a minute.
     */
    public static boolean succeeds(final String... command) throws InterruptedException
    {
        final Process process;
        try
        {
            process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        }
        catch (final IOException notStarted)
        {
            System.out.println(command[0] + " cannot be started here: " + notStarted.getMessage());
            return false;
        }
        try
        {
            if (!process.waitFor(BOUND_SECONDS, TimeUnit.SECONDS))
            {
                throw new AssertionError(String.join(" ", command) + " did not finish within " + BOUND_SECONDS +
                    " s");
            }
            return process.exitValue() == 0;
        }
        finally
        {
            ProcessTree.kill(process);
        }
    }
}
