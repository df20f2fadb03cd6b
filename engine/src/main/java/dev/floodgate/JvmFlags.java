package dev.floodgate;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The JVM flags every JVM that runs the engine needs, declared once in the root {@code pom.xml}
 * ({@code floodgate.jvm.flags}) and filtered into the resource {@code dev/floodgate/jvm.flags}. Used to start
 * child JVMs (multi-process tests, the CLI's demo and bench, JMH forks).
 */
public final class JvmFlags
{
    private static final List<String> REQUIRED = load();

    private JvmFlags()
    {
    }

    /** @return the flags, one element each. */
    public static List<String> required()
    {
        return REQUIRED;
    }

    /**
     * @param mainClass the class to run.
     * @param classPath the class path of the child.
     * @param jvmArgs   extra JVM options (e.g. {@code -Xmx256m}).
     * @param args      program arguments.
     * @return a command line that starts a child JVM with the same {@code java} as this one.
     */
    public static List<String> javaCommand(
        final String mainClass, final String classPath, final List<String> jvmArgs, final List<String> args)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(REQUIRED);
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classPath);
        command.add(mainClass);
        command.addAll(args);
        return command;
    }

    private static List<String> load()
    {
        try (InputStream in = JvmFlags.class.getResourceAsStream("/dev/floodgate/jvm.flags"))
        {
            if (in == null)
            {
                throw new IllegalStateException("resource dev/floodgate/jvm.flags is missing from the engine jar");
            }
            final String text = new String(in.readAllBytes(), StandardCharsets.UTF_8).trim();
            if (text.isEmpty() || text.contains("${"))
            {
                throw new IllegalStateException("resource dev/floodgate/jvm.flags was not filtered by Maven: " + text);
            }
            return List.copyOf(Arrays.asList(text.split("\\s+")));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}
