package dev.floodgate.tools.command;

import dev.floodgate.FloodgateFileException;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.tools.CliException;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.table.TableFiles;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The check a writing command makes before it opens anything: a table it cannot write is refused with exit
 * code 1, so the operator learns why instead of seeing a partial change.
 */
final class WriteAccess
{
    private WriteAccess()
    {
    }

    /**
     * @param file      an existing path.
     * @param unchanged what the refusal leaves undone, as the command would say it (e.g. "nothing was reset").
     * @throws CliException exit code 1 when this user may not write the file.
     */
    static void require(final Path file, final String unchanged)
    {
        if (!Files.isWritable(file))
        {
            throw new CliException(ExitCode.REFUSED, file + ": not writable by this user, " + advice(unchanged));
        }
    }

    /**
     * @param file      a table.
     * @param unchanged what the refusal leaves undone, as the command would say it (e.g. "nothing was reset").
     * @return the refusal (exit code 1) of a table no JVM has opened yet: the engine adopts no policy from it, and
     * it is a state of the table, not a bad file (exit code 3 until an operator's pass).
     */
    static CliException noPolicyYet(final Path file, final String unchanged)
    {
        return new CliException(ExitCode.REFUSED, file + ": has no policy yet (the first JVM to open it publishes " +
            "one), so " + unchanged + "; try again once a broker has opened it");
    }

    /**
     * The engine's refusal to open a table for writing, in the CLI's words: this user may not write (exit code 1);
     * the table has no policy (exit code 1: a table written under a previous boot is replaced by a fresh one at the
     * open, which then has none to adopt); otherwise the file's problem (exit code 3).
     *
     * @param file      the table.
     * @param ex        why the engine could not open it.
     * @param unchanged what the refusal leaves undone, as the command would say it (e.g. "nothing was reset").
     * @return the failure to report.
     */
    static CliException openProblem(final Path file, final FloodgateFileException ex, final String unchanged)
    {
        final CliException problem = TableFiles.writeProblem(ex, advice(unchanged));
        if (problem.exitCode() == ExitCode.FILE && Files.isRegularFile(file))
        {
            try (FloodgateReader reader = FloodgateReader.open(file))
            {
                if (reader.policy().generation() == 0)
                {
                    return noPolicyYet(file, unchanged);
                }
            }
            catch (final FloodgateFileException unreadable)
            {
                // the engine's own words then
            }
        }
        return problem;
    }

    /**
     * @param unchanged what a refusal leaves undone, e.g. "nothing was reset".
     * @return what a refusal for want of write access adds to its cause.
     */
    static String advice(final String unchanged)
    {
        return "so " + unchanged + " (run as the brokers' user)";
    }
}
