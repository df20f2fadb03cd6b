package dev.floodgate.testkit;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

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
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A private redis-server for one test class or test: loopback only, a free port, no persistence, its own temporary
 * directory. Not daemonized: it runs under a small bash watchdog reading this JVM's pipe, which SIGKILLs it when the
 * pipe closes, so a test JVM that dies (even by SIGKILL) leaves no server behind. {@link #kill9()} and
 * {@link #restart()} play a crash and a comeback on the same port. The test's own commands go through a Lettuce
 * connection of its own, apart from the client under test: every command is bounded (2 s), and a lost connection
 * stays lost (no reconnect) until {@link #restart()}, so a test never waits on a server it stopped or killed.
 * Fails (never skips) when redis-server is not installed. Not thread-safe: one test drives it.
 */
public final class LocalRedis implements AutoCloseable
{
    /**
     * A bound on a server's start (and on its port closing after SIGKILL), not a figure: the server was ready 58 ms
     * after its start when a test failed "did not answer PING within 10 s" beside four CPU hogs and a build (the test
     * JVM's first connection, Netty and Lettuce loading, took the rest); a server that dies is seen at once.
     */
    private static final long START_TIMEOUT_MS = 60_000;
    private static final Duration TIMEOUT = Duration.ofSeconds(2);
    private static final Pattern SCRIPT_CALLS = Pattern.compile("cmdstat_(evalsha|eval):calls=(\\d+)");
    private static final String WATCHDOG = "log=$1; shift; redis-server \"$@\" >>\"$log\" 2>&1 & r=$!; echo \"$r\"; "
        + "cat >/dev/null; kill -9 \"$r\" 2>/dev/null; wait \"$r\" 2>/dev/null; exit 0";

    private final int port;
    private final Path dir;
    private final RedisClient client;
    private Process watchdog;
    private long pid;
    private StatefulRedisConnection<String, String> connection;

    private LocalRedis(final int port, final Path dir)
    {
        this.port = port;
        this.dir = dir;
        this.client = RedisClient.create(RedisURI.builder().redis("127.0.0.1", port).withTimeout(TIMEOUT).build());
        client.setOptions(ClientOptions.builder().autoReconnect(false)
            .socketOptions(SocketOptions.builder().connectTimeout(TIMEOUT).build())
            .timeoutOptions(TimeoutOptions.enabled(TIMEOUT)).build());
    }

    /**
     * @return a running server that answers PING.
     * @throws AssertionError if redis-server is not installed, dies, or does not answer within a minute.
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

    /** @return the server's port on 127.0.0.1. */
    public int port()
    {
        return port;
    }

    /** @return {@code redis://127.0.0.1:<port>/0}. */
    public String uri()
    {
        return "redis://127.0.0.1:" + port + "/0";
    }

    /** @return the commands of the test's connection: each fails within 2 s, at once after {@link #kill9()}. */
    public RedisCommands<String, String> commands()
    {
        if (connection == null)
        {
            throw new IllegalStateException("redis-server was killed and not restarted");
        }
        return connection.sync();
    }

    /** @return the server's clock in ms (TIME). */
    public long timeMs()
    {
        final List<String> time = commands().time();
        return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
    }

    /** @return the script calls the server has run (EVALSHA, and EVAL when a client loaded its script). */
    public long scriptCalls()
    {
        final Matcher m = SCRIPT_CALLS.matcher(commands().info("commandstats"));
        long calls = 0;
        while (m.find())
        {
            calls += Long.parseLong(m.group(2));
        }
        return calls;
    }

    /** SIGKILLs the server, as a crash would, and waits until its port refuses connections. */
    public void kill9() throws IOException
    {
        signal("KILL");
        closeConnection();
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
        StatefulRedisConnection<String, String> probe;
        while ((probe = answering()) != null)
        {
            probe.close();
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("redis-server " + pid + " still answers " + START_TIMEOUT_MS / 1000 +
                    " s after SIGKILL");
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
        closeConnection();
        stopWatchdog();
        launch();
    }

    /** Shuts the server down (SHUTDOWN NOSAVE, then SIGKILL) and deletes its directory. */
    @Override
    public void close() throws IOException
    {
        if (connection != null)
        {
            try
            {
                connection.sync().shutdown(false);
            }
            catch (final RedisException ex)
            {
                // it closes the connection without a reply when it goes, or is stopped (then the watchdog kills it)
            }
        }
        closeConnection();
        stopWatchdog();
        client.shutdown(Duration.ZERO, TIMEOUT);
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
        // the connection that answers PING first is the one kept: a test's first command follows at once (one
        // handshake less for the client under test to race, e.g. reconnecting to a restarted server)
        while ((connection = answering()) == null)
        {
            if (ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true) || System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("redis-server did not answer PING on 127.0.0.1:" + port + " within " +
                    START_TIMEOUT_MS / 1000 + " s: " + log());
            }
            sleep(20);
        }
    }

    /** @return a new connection that answered PING, or null. */
    private StatefulRedisConnection<String, String> answering()
    {
        StatefulRedisConnection<String, String> probe = null;
        try
        {
            probe = client.connect();
            probe.sync().ping();
            return probe;
        }
        catch (final RedisException ex)
        {
            if (probe != null)
            {
                probe.close();
            }
            return null;
        }
    }

    private void closeConnection()
    {
        if (connection != null)
        {
            connection.close();
            connection = null;
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
                trySignal("KILL"); // a server gone already is what this wants
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

    /**
     * Sends the server a signal, failing the test when it was not sent: a {@code kill} that failed (no such process,
     * no permission) or did not end was ignored, and a test went on believing the server stopped, frozen or thawed
     * (found by review).
     */
    private void signal(final String name) throws IOException
    {
        final String failure = trySignal(name);
        if (failure != null)
        {
            throw new AssertionError(failure + "; redis-server's log: " + log());
        }
    }

    /** @return null when {@code kill} sent the signal, else what went wrong. */
    private String trySignal(final String name) throws IOException
    {
        final Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid)).redirectErrorStream(true)
            .start();
        try
        {
            if (!kill.waitFor(10, TimeUnit.SECONDS))
            {
                kill.destroyForcibly();
                return "kill -" + name + " " + pid + " did not end within 10 s";
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            kill.destroyForcibly();
            return "interrupted while sending SIG" + name + " to redis-server " + pid;
        }
        final String said = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        return kill.exitValue() == 0 ? null : "kill -" + name + " " + pid + " failed (exit " + kill.exitValue() + "): "
            + said;
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
