package dev.floodgate.tools;

import dev.floodgate.JvmFlags;
import dev.floodgate.testkit.ProcessTree;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs the CLI as a user does, in its own JVM, so its standard error holds everything the user would see
 * (log records included) and the environment can be set.
 */
final class CliProcess
{
    private CliProcess()
    {
    }

    /**
     * @param dir  where to keep the output.
     * @param env  environment variables to add.
     * @param args the command line.
     * @return the outcome.
     */
    static Cli.Result run(final Path dir, final Map<String, String> env, final String... args)
        throws IOException, InterruptedException
    {
        return run(dir, null, env, args);
    }

    /**
     * As {@link #run(Path, Map, String...)}, started in {@code workingDirectory} (null: the test's), as a user
     * typing relative paths in a shell there.
     */
    static Cli.Result run(final Path dir, final Path workingDirectory, final Map<String, String> env,
        final String... args) throws IOException, InterruptedException
    {
        final Path out = Files.createTempFile(dir, "cli-", ".out");
        final Path err = Files.createTempFile(dir, "cli-", ".err");
        final ProcessBuilder builder = new ProcessBuilder(JvmFlags.javaCommand(FloodgateCli.class.getName(),
            System.getProperty("java.class.path"), List.of("-Xmx128m"), List.of(args)))
            .directory(workingDirectory == null ? null : workingDirectory.toFile())
            .redirectOutput(out.toFile()).redirectError(err.toFile())
            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))); // a user's command that reads gets EOF
        builder.environment().remove("FLOODGATE_POLICY");
        builder.environment().putAll(env);
        final Process process = builder.start();
        try
        {
            if (!process.waitFor(60, TimeUnit.SECONDS))
            {
                fail("floodgate " + String.join(" ", args) + " did not finish within 60 s");
            }
            return new Cli.Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        }
        finally
        {
            ProcessTree.kill(process); // with bench's and load's workers
        }
    }
}
