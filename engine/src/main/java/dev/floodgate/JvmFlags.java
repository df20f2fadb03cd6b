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
 * child JVMs (multi-process tests, the CLI's demo and bench, JMH forks), and checked when a table is mapped
 * ({@link #requireInEffect}), so a JVM started without them fails with their names instead of a Chronicle
 * stack trace.
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
     * Checks that every {@code --add-exports} and {@code --add-opens} of {@link #required()} is in effect for the
     * class path (the unnamed module the engine and Chronicle Map are loaded in), by asking the modules
     * themselves, so flags given through {@code JDK_JAVA_OPTIONS} or an argument file count as well.
     *
     * @throws IllegalStateException naming every missing flag and how to pass them all.
     */
    public static void requireInEffect()
    {
        final List<String> missing = missing(REQUIRED, JvmFlags.class.getClassLoader().getUnnamedModule());
        if (!missing.isEmpty())
        {
            throw new IllegalStateException("Floodgate needs JVM flags that this JVM was started without (Chronicle " +
                "Map reaches into the JDK); missing " + missing.size() + ": " + String.join(" ", missing) +
                ". Start java with all of them: they are the resource dev/floodgate/jvm.flags in the engine jar " +
                "and tools/target/jvm.flags in a build, e.g. java @tools/target/jvm.flags -cp ... (README: " +
                "Running the engine's JVMs)");
        }
    }

    /** @return the module flags of {@code flags} not in effect for {@code target}, in their order. */
    static List<String> missing(final List<String> flags, final Module target)
    {
        final List<String> missing = new ArrayList<>();
        for (final String flag : flags)
        {
            final boolean exports = flag.startsWith("--add-exports=");
            if (!exports && !flag.startsWith("--add-opens="))
            {
                continue; // a system property: the engine sets what it needs itself
            }
            final String what = flag.substring(flag.indexOf('=') + 1); // module/package=target
            final int slash = what.indexOf('/');
            final int eq = what.indexOf('=');
            final Module module = ModuleLayer.boot().findModule(what.substring(0, slash)).orElse(null);
            final String pkg = what.substring(slash + 1, eq);
            if (module == null || !(exports ? module.isExported(pkg, target) : module.isOpen(pkg, target)))
            {
                missing.add(module == null ? flag + " (module " + what.substring(0, slash) + " is not in this " +
                    "runtime: a JDK is needed, not a JRE)" : flag);
            }
        }
        return missing;
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
