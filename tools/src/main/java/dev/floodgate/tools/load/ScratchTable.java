package dev.floodgate.tools.load;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.FloodgateFileException;
import dev.floodgate.tools.CliException;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.table.TableFiles;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * A throwaway table for {@code demo} and {@code bench}, in a new temporary directory (or at a path the user
 * chose, which must not exist yet: a load tool must never write into the brokers' table). Closing deletes the
 * directory with the table and the workers' logs, unless asked to keep it.
 */
public final class ScratchTable implements AutoCloseable
{
    private final Path dir;
    private final Path file;
    private final boolean ownsDir;
    private final int shards;
    private boolean keep;

    private ScratchTable(final Path dir, final Path file, final boolean ownsDir, final int shards)
    {
        this.dir = dir;
        this.file = file;
        this.ownsDir = ownsDir;
        this.shards = shards;
    }

    /**
     * Creates the table now, so every worker maps the same, complete file.
     *
     * @param file     where, or null for a new temporary directory.
     * @param capacity entries.
     * @param prefix   the temporary directory's name prefix.
     * @param parent   where to create the temporary directory; null: the system's temporary directory.
     * @return the scratch table.
     * @throws CliException exit code 1 when {@code file} exists, 3 when it cannot be created.
     */
    public static ScratchTable create(final Path file, final long capacity, final String prefix, final Path parent)
    {
        if (file != null && Files.exists(file))
        {
            throw new CliException(ExitCode.REFUSED, file + ": exists; this command makes its own table and will " +
                "not write into an existing one (give a new path, or none for a temporary directory)");
        }
        final Path dir;
        final boolean ownsDir = file == null;
        try
        {
            // the workers' logs, and the table unless a path was given
            dir = parent == null ? Files.createTempDirectory(prefix) : Files.createTempDirectory(parent, prefix);
        }
        catch (final IOException ex)
        {
            throw new CliException(ExitCode.FILE, "cannot create a temporary directory: " + ex.getMessage());
        }
        final Path table = ownsDir ? dir.resolve("floodgate.map") : file;
        final int shards = Runtime.getRuntime().availableProcessors();
        try
        {
            final int created = Floodgate.createFile(FloodgateConfig.builder().file(table).capacity(capacity).build());
            return new ScratchTable(dir, table, ownsDir, created);
        }
        catch (final FloodgateFileException ex)
        {
            new ScratchTable(dir, table, ownsDir, shards).close(); // nothing of ours stays behind
            throw TableFiles.fileProblem(ex);
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
        if (keep)
        {
            return;
        }
        try
        {
            if (!ownsDir)
            {
                delete(file);
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
