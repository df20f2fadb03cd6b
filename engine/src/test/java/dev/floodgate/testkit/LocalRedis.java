package dev.floodgate.testkit;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private redis-server for one test class or test: loopback only, a free port, no persistence, its own temporary
 * directory. Not daemonized: it runs under a small bash watchdog reading this JVM's pipe, which SIGKILLs it when the
 * pipe closes, so a test JVM that dies (even by SIGKILL) leaves no server behind. {@link #kill9()} and
 * {@link #restart()} play a crash and a comeback on the same port. Fails (never skips) when redis-server is not
 * installed. Not thread-safe: one test drives it.
 */
public final class LocalRedis implements AutoCloseable
{
    private static final long START_TIMEOUT_MS = 10_000;
    private static final String WATCHDOG = "log=$1; shift; redis-server \"$@\" >>\"$log\" 2>&1 & r=$!; echo \"$r\"; "
        + "cat >/dev/null; kill -9 \"$r\" 2>/dev/null; wait \"$r\" 2>/dev/null; exit 0";

    private final int port;
    private final Path dir;
    private Process watchdog;
    private long pid;

    private LocalRedis(final int port, final Path dir)
    {
        this.port = port;
        this.dir = dir;
    }

    /**
     * @return a running server that answers PING.
     * @throws AssertionError if redis-server is not installed or does not answer within 10 s.
     */
    public static LocalRedis start() throws IOException
    {
        requireInstalled();
        final LocalRedis redis = new LocalRedis(freePort(), Files.createTempDirectory("floodgate-redis-"));
        try
        {
            redis.launch();
            return redis;
        }
        catch (final IOException | RuntimeException | Error ex)
        {
            redis.close();
            throw ex;
        }
    }

    /** @return its port on 127.0.0.1. */
    public int port()
    {
        return port;
    }

    /** @return {@code redis://127.0.0.1:<port>/0}. */
    public String uri()
    {
        return "redis://127.0.0.1:" + port + "/0";
    }

    /** @return the server's pid. */
    public long pid()
    {
        return pid;
    }

    /** @see Resp#call */
    public Object call(final Object... args) throws IOException
    {
        return Resp.call(port, 2_000, args);
    }

    /** @return the server's clock in ms (TIME). */
    public long timeMs() throws IOException
    {
        return Resp.timeMs(port);
    }

    /** SIGKILLs the server, as a crash would, and waits until its port refuses connections. */
    public void kill9() throws IOException
    {
        signal("KILL");
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        while (answers())
        {
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("redis-server " + pid + " still answers 10 s after SIGKILL");
            }
            sleep(10);
        }
        stopWatchdog();
    }

    /** SIGSTOPs the server: connections stay open, nothing answers (a stalled server). */
    public void pause() throws IOException
    {
        signal("STOP");
    }

    /** SIGCONTs a paused server. */
    public void resume() throws IOException
    {
        signal("CONT");
    }

    /** Starts a new, empty server on the same port (after {@link #kill9()}) and waits until it answers. */
    public void restart() throws IOException
    {
        stopWatchdog();
        launch();
    }

    /** Shuts the server down (SHUTDOWN NOSAVE, then SIGKILL) and deletes its directory. */
    @Override
    public void close() throws IOException
    {
        if (watchdog != null && watchdog.isAlive())
        {
            try
            {
                call("SHUTDOWN", "NOSAVE");
            }
            catch (final IOException ex)
            {
                // it closes the connection without a reply when it goes, or is gone already
            }
        }
        stopWatchdog();
        try (Stream<Path> files = Files.walk(dir))
        {
            files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
        }
    }

    private void launch() throws IOException
    {
        final ProcessBuilder builder = new ProcessBuilder(List.of("bash", "-c", WATCHDOG, "redis-watchdog",
            dir.resolve("redis.log").toString(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
            "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no"));
        builder.redirectError(ProcessBuilder.Redirect.DISCARD);
        watchdog = builder.start();
        final BufferedReader out = new BufferedReader(new InputStreamReader(watchdog.getInputStream(),
            StandardCharsets.US_ASCII));
        pid = Long.parseLong(out.readLine().trim());
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        while (!answers())
        {
            if (ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true) || System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("redis-server did not answer PING on 127.0.0.1:" + port + " within 10 s: "
                    + log());
            }
            sleep(20);
        }
    }

    private boolean answers()
    {
        try
        {
            return "PONG".equals(Resp.call(port, 500, "PING"));
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    private void stopWatchdog()
    {
        if (watchdog == null)
        {
            return;
        }
        try
        {
            watchdog.getOutputStream().close();
            if (!watchdog.waitFor(5, TimeUnit.SECONDS))
            {
                signal("KILL");
                watchdog.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        watchdog = null;
    }

    private void signal(final String name) throws IOException
    {
        try
        {
            new ProcessBuilder("kill", "-" + name, Long.toString(pid)).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    private String log()
    {
        try
        {
            final List<String> lines = Files.readAllLines(dir.resolve("redis.log"), StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 10), lines.size()));
        }
        catch (final IOException ex)
        {
            return "(no log)";
        }
    }

    private static void requireInstalled()
    {
        final String path = System.getenv().getOrDefault("PATH", "");
        for (final String entry : path.split(File.pathSeparator))
        {
            if (!entry.isEmpty() && Files.isExecutable(Path.of(entry, "redis-server")))
            {
                return;
            }
        }
        throw new AssertionError("redis-server is not installed (not on PATH): run tools/redis-server-ensure "
            + "(as root with apt-get it installs Debian's redis-server; mvn verify runs it before the engine's tests)");
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
            throw new AssertionError("interrupted", ex);
        }
    }
}
