package dev.floodgate.testkit;

import dev.floodgate.JvmFlags;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

/**
 * The class path and flags {@link ChildJvm} starts a child on: this JVM's class path with its directories jarred,
 * and an application class data archive of it ({@code -XX:SharedArchiveFile}), so a child maps the engine's,
 * Chronicle's and the test kit's classes parsed and verified instead of loading them: about half a child's start-up
 * CPU (NOTES: The suite's wall time). The same bytecode runs, compiled by the same JIT: only loading changes. JDK 17
 * archives nothing from a class path that holds a non-empty directory, hence the jars.
 *
 * <p>Built into the directory the system property {@value #DIR_PROPERTY} names (Surefire's: the module's
 * {@code target/child-cds}) for the first child of a test JVM, under a file lock, and reused while the class path's
 * files, the JDK and the engine's flags are those it was built from and it still maps: each test JVM maps it once
 * with {@code -Xshare:on} before its children rely on it, and builds it again when that fails. The archive holds what
 * one training run of {@link Worker} through both doors loaded (about 3 s of CPU, once). Without the property (a
 * test run from an IDE), or when any step fails (said once on standard error), children start as before: this JVM's
 * class path, no archive. A child whose archive stopped matching (a jar rewritten under it) starts without it, as
 * {@code -Xshare:auto} does; its cds warnings are off, so that its output stays its own.
 */
public final class ChildClassData
{
    /** The system property naming where the jars and the archive are kept. */
    public static final String DIR_PROPERTY = "floodgate.child.cds.dir";
    private static final String ARCHIVE = "children.jsa";
    private static final String KEY = "key";
    private static final long STEP_SECONDS = 120;
    private static final ChildClassData CURRENT = load();

    private final String classPath;
    private final List<String> flags;

    private ChildClassData(final String classPath, final List<String> flags)
    {
        this.classPath = classPath;
        this.flags = List.copyOf(flags);
    }

    /** @return the class path and archive for children of this JVM's class path, built on first use. */
    public static ChildClassData current()
    {
        return CURRENT;
    }

    /** @return the class path to start a child with: this JVM's, its directories jarred when there is an archive. */
    public String classPath()
    {
        return classPath;
    }

    /**
     * @param jvmArgs a child's own JVM options.
     * @return them, then the archive's (none without one).
     */
    public List<String> withFlags(final String... jvmArgs)
    {
        final List<String> all = new ArrayList<>(List.of(jvmArgs));
        all.addAll(flags);
        return all;
    }

    private static ChildClassData load()
    {
        final String plain = System.getProperty("java.class.path");
        final String dir = System.getProperty(DIR_PROPERTY);
        if (dir == null || dir.isBlank())
        {
            return new ChildClassData(plain, List.of());
        }
        try
        {
            return build(Path.of(dir), plain);
        }
        catch (final IOException | InterruptedException | RuntimeException | AssertionError ex)
        {
            if (ex instanceof InterruptedException)
            {
                Thread.currentThread().interrupt();
            }
            System.err.println("child JVMs start without a class data archive (" + DIR_PROPERTY + "=" + dir + "): " +
                ex);
            return new ChildClassData(plain, List.of());
        }
    }

    private static ChildClassData build(final Path dir, final String plain) throws IOException, InterruptedException
    {
        Files.createDirectories(dir);
        final String[] entries = plain.split(File.pathSeparator);
        final String key = key(entries);
        try (FileChannel channel = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE,
            StandardOpenOption.WRITE);
             FileLock ignored = channel.lock()) // another test JVM on this directory waits rather than overwrites
        {
            final List<String> jarred = new ArrayList<>();
            final List<Path[]> toJar = new ArrayList<>();
            for (int i = 0; i < entries.length; i++)
            {
                final Path entry = Path.of(entries[i]);
                final Path jar = dir.resolve(i + "-" + entry.getFileName() + ".jar");
                jarred.add(Files.isDirectory(entry) ? jar.toString() : entries[i]);
                if (Files.isDirectory(entry))
                {
                    toJar.add(new Path[] {entry, jar});
                }
            }
            final String classPath = String.join(File.pathSeparator, jarred);
            final Path archive = dir.resolve(ARCHIVE);
            final List<String> check = command(classPath, "-Xshare:on", "-XX:SharedArchiveFile=" + archive, "-version");
            final ChildClassData ready = new ChildClassData(classPath, List.of("-XX:SharedArchiveFile=" + archive,
                "-Xlog:cds=off", "-Xlog:cds+dynamic=off"));
            if (Files.exists(dir.resolve(KEY)) && Files.readString(dir.resolve(KEY)).equals(key) &&
                succeeds(dir, "check", check))
            {
                return ready;
            }
            Files.deleteIfExists(dir.resolve(KEY));
            for (final Path[] pair : toJar)
            {
                jar(pair[0], pair[1]);
            }
            dump(dir, classPath, archive);
            if (!succeeds(dir, "check", check))
            {
                throw new IllegalStateException("the new archive does not map: see " + dir.resolve("check.log"));
            }
            Files.writeString(dir.resolve(KEY), key); // last: a build cut short is made again
            return ready;
        }
    }

    /** The training run: one {@link Worker} through both doors, whose loaded classes the JVM archives as it exits. */
    private static void dump(final Path dir, final String classPath, final Path archive)
        throws IOException, InterruptedException
    {
        final Path training = Files.createTempDirectory(dir, "training-");
        try
        {
            final Path go = Files.createFile(training.resolve("go"));
            final Path temp = dir.resolve(ARCHIVE + ".tmp");
            Files.deleteIfExists(temp);
            final boolean trained = succeeds(dir, "training", command(classPath, "-Xmx192m", "-XX:+UseSerialGC", "-XX:ArchiveClassesAtExit=" + temp,
                ChildMain.starterFlag(), ChildMain.class.getName(), Worker.class.getName(),
                training.resolve("training.map").toString(), "window", "publish", "trainee", "1000", "60000", "2", "500",
                go.toString(), "4"));
            if (!trained || !Files.exists(temp))
            {
                throw new IllegalStateException("the training run failed or wrote no archive; see " +
                    dir.resolve("training.log"));
            }
            Files.move(temp, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        finally
        {
            try (Stream<Path> files = Files.walk(training))
            {
                files.sorted((a, b) -> b.compareTo(a)).forEach(path -> path.toFile().delete());
            }
        }
    }

    private static List<String> command(final String classPath, final String... tail)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JvmFlags.required());
        command.add("-cp");
        command.add(classPath);
        command.addAll(List.of(tail));
        return command;
    }

    /** @return whether {@code command} exited with 0 within its bound; its output is kept in {@code <step>.log}. */
    private static boolean succeeds(final Path dir, final String step, final List<String> command)
        throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(dir.resolve(step + ".log").toFile()).start();
        try
        {
            return process.waitFor(STEP_SECONDS, TimeUnit.SECONDS) && process.exitValue() == 0;
        }
        finally
        {
            ProcessTree.kill(process);
        }
    }

    /** Writes {@code directory}'s files and folders into {@code jar}, whole or not at all. */
    private static void jar(final Path directory, final Path jar) throws IOException
    {
        final Path temp = jar.resolveSibling(jar.getFileName() + ".tmp");
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(temp));
             Stream<Path> walk = Files.walk(directory))
        {
            for (final Path path : (Iterable<Path>)walk.sorted()::iterator)
            {
                if (path.equals(directory))
                {
                    continue;
                }
                final String name = directory.relativize(path).toString().replace(File.separatorChar, '/');
                if (Files.isDirectory(path))
                {
                    out.putNextEntry(new ZipEntry(name + "/"));
                }
                else
                {
                    out.putNextEntry(new ZipEntry(name));
                    Files.copy(path, (OutputStream)out);
                }
                out.closeEntry();
            }
        }
        Files.move(temp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * @return a digest of what the jars and the archive are made from: the JDK, the flags, the class path, the contents
     *     of its directories' files (a build rewrites them unchanged: their times would make a new archive every run)
     *     and its jars' sizes and times (what the JDK checks them by).
     */
    private static String key(final String[] entries) throws IOException
    {
        final MessageDigest digest;
        try
        {
            digest = MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException(ex);
        }
        update(digest, System.getProperty("java.home") + ' ' + System.getProperty("java.vm.version") + ' ' +
            JvmFlags.required());
        for (final String entry : entries)
        {
            final Path path = Path.of(entry);
            update(digest, entry);
            if (Files.isDirectory(path))
            {
                try (Stream<Path> walk = Files.walk(path))
                {
                    for (final Path file : (Iterable<Path>)walk.sorted()::iterator)
                    {
                        update(digest, path.relativize(file).toString());
                        if (Files.isRegularFile(file))
                        {
                            digest.update(Files.readAllBytes(file));
                        }
                    }
                }
            }
            else if (Files.exists(path))
            {
                update(digest, Files.size(path) + " " + Files.getLastModifiedTime(path).toMillis());
            }
        }
        return HexFormat.of().formatHex(digest.digest());
    }

    private static void update(final MessageDigest digest, final String text)
    {
        digest.update(text.getBytes(StandardCharsets.UTF_8));
        digest.update((byte)0);
    }
}
