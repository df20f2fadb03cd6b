package dev.floodgate.tools;

import dev.floodgate.JvmFlags;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/** Runs a main class in a separate JVM with the engine's flags, bounded in time and always reaped. */
final class ChildJvm
{
    private ChildJvm()
    {
    }

    /**
     * @param dir       where to keep the child's output.
     * @param mainClass the class to run.
     * @param args      its arguments.
     * @return its standard output, after it exited with 0.
     */
    static String run(final Path dir, final Class<?> mainClass, final String... args)
        throws IOException, InterruptedException
    {
        final Path out = Files.createTempFile(dir, "child-", ".out");
        final Path err = Files.createTempFile(dir, "child-", ".err");
        final Process process = new ProcessBuilder(JvmFlags.javaCommand(mainClass.getName(),
            System.getProperty("java.class.path"), List.of("-Xmx256m"), List.of(args)))
            .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try
        {
            if (!process.waitFor(60, TimeUnit.SECONDS))
            {
                fail(mainClass.getSimpleName() + " did not finish within 60 s");
            }
            assertEquals(0, process.exitValue(), () -> mainClass.getSimpleName() + " failed: " + read(err));
            return read(out);
        }
        finally
        {
            if (process.isAlive())
            {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static String read(final Path path)
    {
        try
        {
            return Files.readString(path, StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            return "(unreadable: " + ex + ")";
        }
    }
}
