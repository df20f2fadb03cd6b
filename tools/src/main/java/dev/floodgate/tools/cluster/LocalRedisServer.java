package dev.floodgate.tools.cluster;

import dev.floodgate.tools.CliException;
import dev.floodgate.tools.ExitCode;
import io.lettuce.core.RedisException;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private redis-server for {@code demo --cluster}: loopback, a free port, no persistence, its own temporary
 * directory. It runs under a bash watchdog that reads this JVM's pipe and SIGKILLs the server when the pipe
 * closes, so the server goes with this JVM however it ends (a failure, Ctrl-C, even SIGKILL); {@link #close}
 * shuts it down at once. When redis-server is not installed, {@code tools/redis-server-ensure} installs it
 * (Debian's package, as root), or the error says how to.
 */
public final class LocalRedisServer implements AutoCloseable
{
    private static final long START_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final String WATCHDOG = "log=$1; shift; redis-server \"$@\" >>\"$log\" 2>&1 & r=$!; echo \"$r\"; "
        + "cat >/dev/null; kill -9 \"$r\" 2>/dev/null; wait \"$r\" 2>/dev/null; exit 0";

    private final Path dir;
    private final int port;
    private final Thread hook = new Thread(this::stop, "floodgate-redis-stop");
    private Process watchdog;

    private LocalRedisServer(final Path dir, final int port)
    {
        this.dir = dir;
        this.port = port;
    }

    /**
     * @return a server that answers PING.
     * @throws CliException exit code 1 when redis-server cannot be had or does not start.
     */
    public static LocalRedisServer start()
    {
        ensureInstalled();
        final LocalRedisServer server;
        try
        {
            server = new LocalRedisServer(Files.createTempDirectory("floodgate-redis-"), freePort());
        }
        catch (final IOException ex)
        {
            throw new CliException(ExitCode.REFUSED, "cannot prepare a redis-server: " + ex.getMessage());
        }
        Runtime.getRuntime().addShutdownHook(server.hook);
        try
        {
            server.launch();
            return server;
        }
        catch (final RuntimeException ex)
        {
            server.close();
            throw ex;
        }
    }

    /** @return {@code redis://127.0.0.1:<port>/0}. */
    public String uri()
    {
        return "redis://127.0.0.1:" + port + "/0";
    }

    private void launch()
    {
        try
        {
            watchdog = new ProcessBuilder(List.of("bash", "-c", WATCHDOG, "redis-watchdog",
                dir.resolve("redis.log").toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no"))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
            new BufferedReader(new InputStreamReader(watchdog.getInputStream(), StandardCharsets.US_ASCII)).readLine();
        }
        catch (final IOException ex)
        {
            throw new CliException(ExitCode.REFUSED, "cannot start redis-server: " + ex.getMessage());
        }
        final long deadline = System.nanoTime() + START_TIMEOUT_NANOS;
        while (!ServerConnection.answers(uri()))
        {
            if (!watchdog.isAlive() || System.nanoTime() - deadline > 0)
            {
                throw new CliException(ExitCode.REFUSED, "redis-server did not answer on 127.0.0.1:" + port +
                    " within 10 s: " + lastLogLine());
            }
            sleep(20);
        }
    }

    /** Stops the server (SHUTDOWN NOSAVE, then the watchdog's SIGKILL) and removes its directory. */
    @Override
    public void close()
    {
        stop();
        try
        {
            Runtime.getRuntime().removeShutdownHook(hook);
        }
        catch (final IllegalStateException shuttingDown)
        {
            // the hook runs stop() as well
        }
    }

    private synchronized void stop()
    {
        if (watchdog != null)
        {
            try (ServerConnection server = ServerConnection.open(uri()))
            {
                server.commands().shutdown(false);
            }
            catch (final RuntimeException gone)
            {
                // it closes the connection without a reply when it goes; should Lettuce fail to start in a
                // shutdown hook, the watchdog below kills the server all the same
            }
            try
            {
                watchdog.getOutputStream().close(); // the watchdog SIGKILLs the server if it still runs
                if (!watchdog.waitFor(5, TimeUnit.SECONDS))
                {
                    watchdog.destroyForcibly();
                }
            }
            catch (final IOException | InterruptedException ex)
            {
                watchdog.destroyForcibly();
            }
            watchdog = null;
        }
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
        catch (final IOException | UncheckedIOException ex)
        {
            // already removed
        }
    }

    private String lastLogLine()
    {
        try
        {
            final List<String> lines = Files.readAllLines(dir.resolve("redis.log"), StandardCharsets.UTF_8);
            return lines.isEmpty() ? "(empty log)" : lines.get(lines.size() - 1);
        }
        catch (final IOException ex)
        {
            return "(no log)";
        }
    }

    /** Runs {@code tools/redis-server-ensure} when redis-server is not on the PATH. */
    private static void ensureInstalled()
    {
        if (onPath("redis-server"))
        {
            return;
        }
        final Path script = ensureScript();
        if (script == null)
        {
            throw new CliException(ExitCode.REFUSED, "redis-server is not installed: install it (Debian/Ubuntu: " +
                "apt-get install redis-server, or tools/redis-server-ensure in the repository) and retry");
        }
        try
        {
            final Process ensure = new ProcessBuilder(script.toString()).inheritIO().start();
            if (!ensure.waitFor(10, TimeUnit.MINUTES) || ensure.exitValue() != 0 || !onPath("redis-server"))
            {
                ensure.destroyForcibly();
                throw new CliException(ExitCode.REFUSED, script + " could not install redis-server (see above)");
            }
        }
        catch (final IOException ex)
        {
            throw new CliException(ExitCode.REFUSED, "cannot run " + script + ": " + ex.getMessage());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new CliException(ExitCode.REFUSED, "interrupted while installing redis-server");
        }
    }

    /**
     * @return {@code $FLOODGATE_REDIS_ENSURE}, else {@code tools/redis-server-ensure} beside the running code
     * ({@code tools/target/floodgate-tools.jar} or {@code tools/target/classes}), or null.
     */
    static Path ensureScript()
    {
        final String configured = System.getenv("FLOODGATE_REDIS_ENSURE");
        if (configured != null && !configured.isBlank())
        {
            return Path.of(configured);
        }
        try
        {
            final Path code = Path.of(LocalRedisServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            final Path script = code.getParent().getParent().resolve("redis-server-ensure");
            return Files.isExecutable(script) ? script : null;
        }
        catch (final URISyntaxException | RuntimeException ex)
        {
            return null;
        }
    }

    private static boolean onPath(final String program)
    {
        for (final String entry : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
        {
            if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, program)))
            {
                return true;
            }
        }
        return false;
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    private static void sleep(final long ms)
    {
        try
        {
            Thread.sleep(ms);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new CliException(ExitCode.REFUSED, "interrupted while starting redis-server");
        }
    }
}
