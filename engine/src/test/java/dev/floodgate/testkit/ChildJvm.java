package dev.floodgate.testkit;

import dev.floodgate.JvmFlags;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A separate JVM on the test class path, running a main class of the tests. Its output lines are queued as
 * they arrive, so a test can wait for a line with a deadline. Closing it kills it (SIGKILL) if it still runs,
 * with every process it started (a wrapper's JVM, a CLI's workers): a hung child fails its test instead of hanging
 * the build. Children still running when this JVM exits (Surefire ending a fork that outlived its timeout) are
 * killed by a shutdown hook, and each child runs under {@link ChildMain}, which ends it when this JVM is gone without
 * its hooks (SIGKILL), so none is left polling for a go file nobody will create. A child on this JVM's class path
 * starts on {@link ChildClassData}'s jars and class data archive when there is one (half its start-up CPU); one on a
 * class path or flags of a test's own starts exactly on those.
 */
public final class ChildJvm implements AutoCloseable
{
    private static final Set<ChildJvm> LIVE = ConcurrentHashMap.newKeySet();

    static
    {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> LIVE.forEach(ChildJvm::destroyTree),
            "child-jvm-reaper"));
    }

    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> transcript = java.util.Collections.synchronizedList(new ArrayList<>());
    private final Thread reader;

    private ChildJvm(final Process process)
    {
        this.process = process;
        LIVE.add(this);
        this.reader = new Thread(this::pump, "child-" + process.pid());
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * @param mainClass the class to run.
     * @param args      its arguments.
     * @return the started child.
     */
    public static ChildJvm start(final Class<?> mainClass, final String... args)
    {
        return startWrapped(List.of(), mainClass, args);
    }

    /**
     * @param wrapper   a command the JVM's command line is appended to, e.g. {@code unshare --pid --fork}.
     * @param mainClass the class to run.
     * @param args      its arguments.
     * @return the started child (the wrapper's process).
     */
    public static ChildJvm startWrapped(final List<String> wrapper, final Class<?> mainClass, final String... args)
    {
        final List<String> command = new ArrayList<>(wrapper);
        final ChildClassData classes = ChildClassData.current();
        command.addAll(JvmFlags.javaCommand(ChildMain.class.getName(), classes.classPath(),
            classes.withFlags("-Xmx192m", "-XX:+UseSerialGC", "-Xshare:auto", ChildMain.starterFlag()),
            mainAndArgs(mainClass, args)));
        try
        {
            return new ChildJvm(new ProcessBuilder(command).redirectErrorStream(true).start());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @param classPath the class path to start with, instead of this JVM's (e.g. without an optional library).
     * @param mainClass the class to run.
     * @param args      its arguments.
     * @return the started child.
     */
    public static ChildJvm startWithClassPath(final String classPath, final Class<?> mainClass, final String... args)
    {
        try
        {
            return new ChildJvm(new ProcessBuilder(JvmFlags.javaCommand(ChildMain.class.getName(), classPath,
                List.of("-Xmx192m", "-XX:+UseSerialGC", "-Xshare:auto", ChildMain.starterFlag()),
                mainAndArgs(mainClass, args)))
                .redirectErrorStream(true).start());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @param flags     the JVM flags to start with, instead of {@link JvmFlags#required()}.
     * @param mainClass the class to run.
     * @param args      its arguments.
     * @return the started child.
     */
    public static ChildJvm startWithFlags(final List<String> flags, final Class<?> mainClass, final String... args)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(flags);
        command.addAll(List.of("-Xmx192m", "-XX:+UseSerialGC", ChildMain.starterFlag(), "-cp",
            System.getProperty("java.class.path"), ChildMain.class.getName()));
        command.addAll(mainAndArgs(mainClass, args));
        try
        {
            return new ChildJvm(new ProcessBuilder(command).redirectErrorStream(true).start());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Runs a main class to its end: what a test that only needs a child's output (a writer in another process)
     * uses. Standard output and error are kept apart, so the output can be parsed.
     *
     * @param dir       where to keep the child's output.
     * @param mainClass the class to run.
     * @param args      its arguments.
     * @return its standard output, after it exited with 0.
     * @throws AssertionError with its standard error when it fails or does not finish within 60 s.
     */
    public static String run(final Path dir, final Class<?> mainClass, final String... args)
        throws IOException, InterruptedException
    {
        final Path out = Files.createTempFile(dir, "child-", ".out");
        final Path err = Files.createTempFile(dir, "child-", ".err");
        final ChildClassData classes = ChildClassData.current();
        final Process process = new ProcessBuilder(JvmFlags.javaCommand(ChildMain.class.getName(),
            classes.classPath(), classes.withFlags("-Xmx256m", ChildMain.starterFlag()), mainAndArgs(mainClass, args)))
            .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try
        {
            if (!process.waitFor(60, TimeUnit.SECONDS))
            {
                throw new AssertionError(mainClass.getSimpleName() + " did not finish within 60 s");
            }
            if (process.exitValue() != 0)
            {
                throw new AssertionError(mainClass.getSimpleName() + " failed (exit " + process.exitValue() + "): " +
                    readOrSay(err));
            }
            return readOrSay(out);
        }
        finally
        {
            ProcessTree.kill(process);
        }
    }

    /** @return the command line's tail for {@link ChildMain}: the main class, then its arguments. */
    private static List<String> mainAndArgs(final Class<?> mainClass, final String... args)
    {
        final List<String> tail = new ArrayList<>();
        tail.add(mainClass.getName());
        tail.addAll(Arrays.asList(args));
        return tail;
    }

    private static String readOrSay(final Path path)
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

    private void pump()
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                transcript.add(line);
                lines.add(line);
            }
        }
        catch (final IOException ignored)
        {
            // the child died; its exit code tells the test
        }
    }

    /**
     * @param prefix  what the line starts with.
     * @param seconds how long to wait.
     * @return the first line with that prefix.
     * @throws AssertionError with the child's transcript when none arrives in time or the child exits.
     */
    public String awaitLine(final String prefix, final long seconds)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        try
        {
            while (true)
            {
                final long left = deadline - System.nanoTime();
                final String line = lines.poll(Math.max(0, Math.min(left, 100_000_000L)), TimeUnit.NANOSECONDS);
                if (line != null && line.startsWith(prefix))
                {
                    return line;
                }
                if (line == null && (!process.isAlive() && lines.isEmpty() && !reader.isAlive() || left <= 0))
                {
                    throw new AssertionError("child " + process.pid() + " gave no '" + prefix + "' line in " +
                        seconds + " s (alive=" + process.isAlive() + "); transcript:\n" + transcript());
                }
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    /**
     * @param seconds how long to wait.
     * @return the exit code.
     * @throws AssertionError when the child does not exit in time (it is then killed).
     */
    public int awaitExit(final long seconds)
    {
        try
        {
            if (!process.waitFor(seconds, TimeUnit.SECONDS))
            {
                destroyTree();
                throw new AssertionError("child " + process.pid() + " did not exit in " + seconds + " s; transcript:\n" +
                    transcript());
            }
            reader.join(5_000);
            return process.exitValue();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new AssertionError(ex);
        }
    }

    /**
     * Kills the child and every process it started with SIGKILL, reaps it and waits for the end of its output: the
     * transcript then holds every line it printed before it died (a test counts a killed victim's admissions from
     * them).
     */
    public void kill()
    {
        destroyTree();
        try
        {
            process.waitFor(30, TimeUnit.SECONDS);
            reader.join(5_000);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        finally
        {
            LIVE.remove(this);
        }
    }

    /**
     * SIGKILLs the child's descendants (listed while it still lives: once it dies they are reparented) and it. Through
     * its {@link ProcessHandle}, not {@link Process#destroyForcibly}, which also closes this side of the child's output
     * pipe: the lines still in it, printed but not yet read, were dropped (found by KilledRetireTest's one whole-suite
     * failure), and the transcript was read before the reader had taken the rest.
     */
    private void destroyTree()
    {
        if (process.isAlive())
        {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
        }
        process.toHandle().destroyForcibly();
    }

    /** @return the process id. */
    public long pid()
    {
        return process.pid();
    }

    /** @return everything the child printed so far. */
    public String transcript()
    {
        synchronized (transcript)
        {
            return String.join("\n", transcript);
        }
    }

    @Override
    public void close()
    {
        if (process.isAlive())
        {
            kill();
        }
        LIVE.remove(this);
    }
}
