package dev.floodgate.tools.load;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.FloodgateFileException;
import dev.floodgate.tools.CliException;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.table.TableFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A throwaway table for {@code demo} and {@code bench}, in a new temporary directory (or at a path the user
 * chose, which must not exist yet: a load tool must never write into the brokers' table). Closing deletes the
 * directory with the table and the workers' logs, and the directories the engine made for a chosen path, unless
 * asked to keep them.
 */
public final class ScratchTable implements AutoCloseable
{
    private final Path dir;
    private final Path file;
    private final boolean ownsDir;
    /** The directories missing above a chosen path when it was made (the engine makes them), deepest first. */
    private final List<Path> madeDirs;
    /** Removes the table when the tool is stopped (Ctrl-C, SIGTERM): under /dev/shm it would hold RAM. */
    private final Thread onExit = new Thread(this::remove, "scratch-table-remover");
    private int shards;
    private volatile boolean keep;
    private boolean removed; // guarded by this

    private ScratchTable(final Path dir, final Path file, final boolean ownsDir, final int shards)
    {
        this.dir = dir;
        this.file = file;
        this.ownsDir = ownsDir;
        this.madeDirs = ownsDir ? List.of() : missingDirectories(file);
        this.shards = shards;
        Runtime.getRuntime().addShutdownHook(onExit);
    }

    /**
     * Creates the table now, so every worker maps the same, complete file.
     *
     * @param file     where, or null for a new temporary directory.
     * @param capacity entries.
     * @param prefix   the temporary directory's name prefix.
     * @param parent   where to make the temporary directory when {@code file} is null; null, or one without room
     *                 for the table (a container's 64 MB {@code /dev/shm}), is the system's temporary directory,
     *                 said on standard error.
     * @return the scratch table.
     * @throws CliException exit code 1 when {@code file} exists or this user may not write where it is made, 3
     * when it cannot be created otherwise.
     */
    public static ScratchTable create(final Path file, final long capacity, final String prefix, final Path parent)
    {
        if (file != null && Files.exists(file, LinkOption.NOFOLLOW_LINKS)) // a dangling link too: it is there
        {
            throw new CliException(ExitCode.REFUSED, file + ": exists; this command makes its own table and will " +
                "not write into an existing one (give a new path, or none for a temporary directory)");
        }
        if (file == null && parent != null)
        {
            try
            {
                return createIn(null, capacity, tempDirectory(prefix, parent));
            }
            catch (final CliException ex)
            {
                System.err.println("floodgate: no scratch table under " + parent + " (" + ex.getMessage() +
                    "); making it under " + System.getProperty("java.io.tmpdir") + " instead");
            }
        }
        return createIn(file, capacity, tempDirectory(prefix, null));
    }

    private static ScratchTable createIn(final Path file, final long capacity, final Path dir)
    {
        final boolean ownsDir = file == null;
        // absolute, as the engine takes it and the worker JVMs are given it: java.io.tmpdir may be relative
        final Path table = (ownsDir ? dir.resolve("floodgate.map") : file).toAbsolutePath();
        final ScratchTable scratch = new ScratchTable(dir, table, ownsDir, Runtime.getRuntime().availableProcessors());
        try
        {
            scratch.shards = Floodgate.createFile(FloodgateConfig.builder().file(table).capacity(capacity).build());
            return scratch;
        }
        catch (final FloodgateFileException ex)
        {
            scratch.close(); // nothing of ours stays behind
            throw TableFiles.writeProblem(ex, "");
        }
        catch (final RuntimeException | Error ex)
        {
            scratch.close();
            throw ex;
        }
    }

    /** @return the directories above {@code file} that do not exist, deepest first. */
    private static List<Path> missingDirectories(final Path file)
    {
        final List<Path> missing = new ArrayList<>();
        for (Path parent = file.toAbsolutePath().getParent(); parent != null && !Files.exists(parent);
            parent = parent.getParent())
        {
            missing.add(parent);
        }
        return List.copyOf(missing);
    }

    /** @return a new directory for the workers' logs, and the table unless a path was given. */
    private static Path tempDirectory(final String prefix, final Path parent)
    {
        try
        {
            return parent == null ? Files.createTempDirectory(prefix) : Files.createTempDirectory(parent, prefix);
        }
        catch (final IOException ex)
        {
            throw new CliException(ExitCode.FILE, "cannot create a temporary directory: " + ex.getMessage());
        }
    }

    /** @return the table file. */
    public Path file()
    {
        return file;
    }

    /** @return the temporary directory: the workers' logs, and the table unless a path was given. */
    public Path dir()
    {
        return dir;
    }

    /** @return the table's shard count. */
    public int shards()
    {
        return shards;
    }

    /** @param keep true to leave the table (and logs) behind on close. */
    public void keep(final boolean keep)
    {
        this.keep = keep;
    }

    @Override
    public void close()
    {
        remove(); // first: a SIGTERM before it still finds the hook
        try
        {
            Runtime.getRuntime().removeShutdownHook(onExit);
        }
        catch (final IllegalStateException shuttingDown)
        {
            // the hook is running or will, and finds the table removed
        }
    }

    private synchronized void remove()
    {
        if (keep || removed)
        {
            return;
        }
        removed = true;
        try
        {
            // a path under a regular file (--file t.map/x.map) holds nothing, and deleting there fails (ENOTDIR):
            // that failure skipped the temporary directory below, left in /tmp with a second line of error
            if (!ownsDir && Files.isDirectory(file.toAbsolutePath().getParent()))
            {
                delete(file);
                delete(file.resolveSibling(file.getFileName() + ".lock")); // the engine's, beside every table
                for (final Path made : madeDirs)
                {
                    try
                    {
                        Files.deleteIfExists(made);
                    }
                    catch (final DirectoryNotEmptyException notOnlyOurs)
                    {
                        break; // something else was put there meanwhile: it stays, and so do its parents
                    }
                }
            }
            try (Stream<Path> paths = Files.walk(dir))
            {
                paths.sorted(Comparator.reverseOrder()).forEach(ScratchTable::delete);
            }
        }
        catch (final IOException | UncheckedIOException ex)
        {
            System.err.println("floodgate: could not remove " + dir + ": " + ex.getMessage());
        }
    }

    private static void delete(final Path path)
    {
        try
        {
            Files.deleteIfExists(path);
        }

        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
