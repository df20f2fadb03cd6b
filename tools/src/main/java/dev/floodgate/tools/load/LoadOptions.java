package dev.floodgate.tools.load;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.nio.file.Path;

/**
 * The options {@code demo} and {@code bench} share: where the scratch table goes, how many worker JVMs and
 * threads, whether to keep the table; and the program the worker JVMs run. Each command gives its own defaults;
 * the bounds are common, and a value out of them is a usage error that names its option.
 */
public final class LoadOptions
{
    /** Most worker JVMs. */
    public static final int MAX_PROCESSES = 32;
    /** Most threads per worker JVM. */
    public static final int MAX_THREADS = 256;

    @Option(names = "--file", paramLabel = "PATH",
        description = "Create the scratch table here (must not exist); removed at the end unless --keep. Default: a new " +
            "temporary directory (bench: under /dev/shm, as a broker's table, where that is a writable directory " +
            "with room for it).")
    private Path file;

    @Option(names = "--processes", paramLabel = "P", description = "Worker JVMs, 1 to " + MAX_PROCESSES +
        " (default ${DEFAULT-VALUE}).")
    private long processes;

    @Option(names = "--threads", paramLabel = "T", description = "Threads per JVM, 1 to " + MAX_THREADS +
        " (default ${DEFAULT-VALUE}).")
    private long threads;

    @Option(names = "--keep", description = "Keep the scratch table and worker logs instead of deleting them.")
    private boolean keep;

    /** The command these options are mixed into, set by picocli. */
    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;

    /**
     * @param processes the command's default number of worker JVMs.
     * @param threads   its default threads per JVM.
     */
    public LoadOptions(final int processes, final int threads)
    {
        this.processes = processes;
        this.threads = threads;
    }

    /**
     * @param spec the command, for the usage error.
     * @throws ParameterException naming {@code --processes} or {@code --threads} when out of bounds.
     */
    public void validate(final CommandSpec spec)
    {
        if (file != null && file.toString().isEmpty())
        {
            throw new ParameterException(spec.commandLine(), "--file '': expected the path of a new table file, " +
                "or no --file for a temporary directory");
        }
        requireRange(spec, "--processes", processes, 1, MAX_PROCESSES);
        requireRange(spec, "--threads", threads, 1, MAX_THREADS);
    }

    /**
     * @param spec   the command.
     * @param option the option as the user types it.
     * @param value  its value.
     * @param min    the least value.
     * @param max    the largest value.
     * @throws ParameterException {@code --option value: expected min to max} when out of bounds.
     */
    public static void requireRange(final CommandSpec spec, final String option, final long value, final long min,
        final long max)
    {
        if (value < min || value > max)
        {
            throw new ParameterException(spec.commandLine(), option + " " + value + ": expected " + min + " to " + max);
        }
    }

    /**
     * @param capacity entries.
     * @param prefix   the temporary directory's name prefix.
     * @param parent   where to create the temporary directory; null: the system's temporary directory.
     * @return a new scratch table at {@code --file} or in a temporary directory, kept when {@code --keep}.
     */
    public ScratchTable scratch(final long capacity, final String prefix, final Path parent)
    {
        final ScratchTable scratch = ScratchTable.create(file(), capacity, prefix, parent);
        scratch.keep(keep);
        return scratch;
    }

    /**
     * @return {@code --file} resolved against the working directory (the engine takes only an absolute path, and
     * the worker JVMs are given this one), or null when not given; an empty one as given, for {@link #validate}.
     */
    public Path file()
    {
        return file == null || file.toString().isEmpty() ? file : file.toAbsolutePath();
    }

    /** @return worker JVMs, once {@link #validate} passed. */
    public int processes()
    {
        return Math.toIntExact(processes);
    }

    /** @return threads per worker JVM, once {@link #validate} passed. */
    public int threads()
    {
        return Math.toIntExact(threads);
    }

    /** @return true to keep the scratch table. */
    public boolean keep()
    {
        return keep;
    }

    /**
     * @return the class whose {@code main} runs this command line, its root command's (the CLI's): each worker JVM
     * runs it with the hidden {@code worker} command. Asked of picocli, so that the load package names no CLI class.
     */
    public String mainClass()
    {
        return command.root().userObject().getClass().getName();
    }
}
