package dev.floodgate.tools.table;

import dev.floodgate.FloodgateFileException;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.TableBusyException;
import dev.floodgate.tools.CliException;
import dev.floodgate.tools.ExitCode;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Opens an existing table for the CLI's readers, turning every file problem into a one-line
 * {@link CliException} with exit code {@link ExitCode#FILE}. A tool that is asked to look at a table must
 * never make one up (a typo in {@code --file} would otherwise leave a fresh, empty table behind).
 */
public final class TableFiles
{
    private TableFiles()
    {
    }

    /**
     * Maps an existing table read-only: needs only read permission, works on a read-only file system, and
     * never creates, replaces, repairs or publishes anything.
     *
     * @param file the table's path.
     * @return the reader; close it.
     * @throws CliException exit code 3 when the file is missing, not a regular file, unreadable, foreign or
     * damaged.
     */
    public static FloodgateReader openReader(final Path file)
    {
        requireExisting(file);
        try
        {
            return FloodgateReader.open(file);
        }
        catch (final FloodgateFileException ex)
        {
            throw fileProblem(ex);
        }
    }

    /**
     * @param file a path.
     * @throws CliException exit code 3 when it does not exist, is not a regular file or is not readable.
     */
    public static void requireExisting(final Path file)
    {
        if (!Files.exists(file))
        {
            throw new CliException(ExitCode.FILE, file + ": no such file (set --file or FLOODGATE_FILE to the " +
                "table your brokers use)");
        }
        if (!Files.isRegularFile(file))
        {
            throw new CliException(ExitCode.FILE, file + ": not a regular file");
        }
        if (!Files.isReadable(file))
        {
            throw new CliException(ExitCode.FILE, file + ": permission denied (not readable by this user)");
        }
    }

    /**
     * The check {@code reset} makes before it opens anything: a table it cannot write is refused with exit
     * code 1, so the operator learns why instead of seeing a partial reset.
     *
     * @param file an existing path.
     * @throws CliException exit code 1 when this user may not write the file.
     */
    public static void requireWritable(final Path file)
    {
        if (!Files.isWritable(file))
        {
            throw new CliException(ExitCode.REFUSED, file + ": not writable by this user, so nothing was reset " +
                "(run as the brokers' user)");
        }
    }

    /**
     * @param ex why the engine could not open a table.
     * @return exit code 3 naming the file's problem, or exit code 1 when the file is fine but a live process
     * held the table guard past the timeout (the engine reports that from {@code open} as a file exception
     * caused by a {@link TableBusyException}).
     */
    public static CliException fileProblem(final FloodgateFileException ex)
    {
        if (ex.getCause() instanceof TableBusyException busy)
        {
            return new CliException(ExitCode.REFUSED, "table busy, try again: " + oneLine(busy.getMessage()));
        }
        return new CliException(ExitCode.FILE, oneLine(ex.getMessage()));
    }

    /**
     * The problem a writing command met opening or making a table. Where this user may not write what the engine
     * must (the table's directory, its lock file), it is refused as an unwritable table is: exit code 1 (a refused
     * operation), not 3 (a bad file), and {@code unchanged} says what was not done.
     *
     * @param ex        why the engine could not open or make a table.
     * @param unchanged what the refusal leaves undone, as the command would say it (e.g. "so nothing was reset
     *                  (run as the brokers' user)"), or empty.
     * @return the failure to report.
     */
    public static CliException writeProblem(final FloodgateFileException ex, final String unchanged)
    {
        if (deniedWriting(ex))
        {
            return new CliException(ExitCode.REFUSED, oneLine(ex.getMessage()) +
                (unchanged.isEmpty() ? "" : ", " + unchanged));
        }
        return fileProblem(ex);
    }

    /** @return true when the file system refused this user (EACCES, or EPERM: an immutable directory or file). */
    private static boolean deniedWriting(final Throwable ex)
    {
        for (Throwable cause = ex.getCause(); cause != null; cause = cause.getCause())
        {
            if (cause instanceof AccessDeniedException ||
                cause instanceof FileSystemException fs && String.valueOf(fs.getReason()).contains("not permitted"))
            {
                return true;
            }
        }
        return false;
    }

    private static String oneLine(final String message)
    {
        return message == null ? "unknown error" : message.replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }
}
