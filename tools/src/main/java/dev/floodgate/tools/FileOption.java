package dev.floodgate.tools;

import dev.floodgate.FloodgateConfig;
import dev.floodgate.FloodgateKeys;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * The {@code --file} option every command takes. It defaults to what the engine defaults to: the system
 * property {@code floodgate.file}, else the environment variable {@code FLOODGATE_FILE}, else
 * {@link FloodgateConfig#defaultFile()}. A relative path, natural in a shell, is resolved against the working
 * directory here, before it reaches the engine, which refuses one (each broker JVM would resolve it against its
 * own); so an error or a report names the table by its absolute path.
 */
public final class FileOption
{
    @Option(names = "--file", paramLabel = "PATH",
        description = "The table file. Default: $FLOODGATE_FILE, else /dev/shm/floodgate/floodgate.map " +
            "(under java.io.tmpdir where /dev/shm is missing).")
    private Path file;

    /** @return the table file the command works on. */
    public Path file()
    {
        if (file != null && file.toString().isEmpty())
        {
            throw new CliException(ExitCode.USAGE, "--file '': expected the path of a table file");
        }
        return file != null ? file.toAbsolutePath() : defaultFile();
    }

    /**
     * @return the engine's default file, honouring {@code floodgate.file} and {@code FLOODGATE_FILE} (a relative
     * value resolved against the working directory, as {@code --file}'s).
     */
    public static Path defaultFile()
    {
        return defaultFile(System.getProperty("floodgate." + FloodgateKeys.KEY_FILE), System.getenv("FLOODGATE_FILE"));
    }

    /**
     * The engine's rule for every key ({@code FloodgateConfig.fromEnvironment}): a property that is set wins over
     * the variable, even when blank, and a blank value means the default.
     */
    static Path defaultFile(final String property, final String env)
    {
        return defaultFile(property, env, FloodgateConfig.defaultFile());
    }

    /**
     * @param engineDefault {@link FloodgateConfig#defaultFile()}: relative on a host without /dev/shm whose
     *                      java.io.tmpdir is, and then resolved as a relative value is.
     */
    static Path defaultFile(final String property, final String env, final Path engineDefault)
    {
        final String value = property != null ? property : env;
        return (value == null || value.isBlank() ? engineDefault : Path.of(value.trim())).toAbsolutePath();
    }
}
