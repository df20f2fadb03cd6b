package dev.floodgate.tools;

import dev.floodgate.testkit.DebuggedChild;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * LoadRun's stop ran observer.stopped() on whichever thread won the compare-and-set, and a shutdown hook that lost
 * it returned at once, so the JVM halted under the winner: a Ctrl-C while the normal path was deleting the run's
 * cluster buckets (seconds for a large --keys) cut the deletion off and left the buckets in Redis (found by review;
 * failed before). The bench talks to Redis through a proxy that holds its UNLINK: while it is held, SIGTERM must
 * not end the JVM, and once released every bucket is gone. Bench runs under the debugger, which shows its shutdown
 * hook waiting for the deletion: a fixed 1.5 s stood for that and, on a loaded host, could end before the JVM had even
 * begun its shutdown, so the test passed without testing.
 */
class BenchStopRaceTest
{
    @TempDir
    Path dir;

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void ctrlCWhileTheNormalPathDeletesTheBucketsDoesNotCutTheDeletionOff() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); HoldingProxy proxy = new HoldingProxy(redis.port(), "UNLINK");
             DebuggedChild bench = DebuggedChild.start(FloodgateCli.class,
                 List.of("bench", "--processes", "1", "--threads", "1", "--keys", "2", "--duration", "1s",
                     "--file", dir.resolve("bench.map").toString(), "--cluster-redis", proxy.uri(),
                     "--cluster-limit", "100", "--cluster-lease", "10")))
        {
            try
            {
                bench.vm().resume();
                // the run ended normally and its deletion (the normal path's stopped()) has sent UNLINK
                assertTrue(proxy.held.await(90, TimeUnit.SECONDS), "bench never deleted its buckets: " +
                    bench.transcript());
                assertFalse(redis.commands().keys("floodgate:publish:bench-*").isEmpty(), "no buckets to delete");
                bench.process().destroy(); // SIGTERM, as Ctrl-C's SIGINT
                // the shutdown hook reaped the workers (gone already) and came to the deletion: it waits for the
                // command's thread to finish it, on the once-flag's monitor, or (the bug) returns and the JVM halts
                final boolean hookWaited = bench.awaitBlockedOnMonitor("floodgate-reaper",
                    "java.util.concurrent.atomic.AtomicBoolean", 60);
                proxy.release();
                assertTrue(bench.process().waitFor(30, TimeUnit.SECONDS), "bench did not stop");
                assertTrue(hookWaited, "the JVM halted while stopped() was deleting the run's buckets on the " +
                    "command's thread (the shutdown hook lost the compare-and-set and returned at once): " +
                    bench.transcript());
                assertEquals(List.of(), redis.commands().keys("floodgate:*"), "buckets left in Redis");
            }
            finally
            {
                proxy.release();
                bench.process().descendants().forEach(ProcessHandle::destroyForcibly);
            }
        }
    }

    /** Forwards loopback connections to Redis; holds a client's bytes from the first chunk naming a command. */
    private static final class HoldingProxy implements AutoCloseable
    {
        final CountDownLatch held = new CountDownLatch(1);
        private final CountDownLatch go = new CountDownLatch(1);
        private final ServerSocket listener;
        private final int target;
        private final byte[] command;
        private final List<Socket> sockets = new CopyOnWriteArrayList<>();

        HoldingProxy(final int target, final String command) throws IOException
        {
            this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            this.target = target;
            this.command = ("\r\n" + command + "\r\n").getBytes(StandardCharsets.US_ASCII);
            final Thread accept = new Thread(this::accept, "proxy-accept");
            accept.setDaemon(true);
            accept.start();
        }

        String uri()
        {
            return "redis://127.0.0.1:" + listener.getLocalPort() + "/0";
        }

        void release()
        {
            go.countDown();
        }

        private void accept()
        {
            try
            {
                while (true)
                {
                    final Socket client = listener.accept();
                    final Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
                    sockets.add(client);
                    sockets.add(server);
                    pump(client.getInputStream(), server.getOutputStream(), true, client, server);
                    pump(server.getInputStream(), client.getOutputStream(), false, client, server);
                }
            }
            catch (final IOException closed)
            {
                // the proxy was closed
            }
        }

        private void pump(final InputStream in, final OutputStream out, final boolean watch, final Socket a,
            final Socket b)
        {
            final Thread t = new Thread(() ->
            {
                final byte[] buf = new byte[65536];
                try
                {
                    for (int n = in.read(buf); n >= 0; n = in.read(buf))
                    {
                        if (watch && contains(buf, n))
                        {
                            held.countDown();
                            go.await();
                            if (a.isClosed())
                            {
                                return;
                            }
                        }
                        out.write(buf, 0, n);
                        out.flush();
                    }
                }
                catch (final IOException | InterruptedException ex)
                {
                    // a side closed
                }
                finally
                {
                    close(a);
                    close(b);
                }
            }, "proxy-pump");
            t.setDaemon(true);
            t.start();
        }

        private boolean contains(final byte[] buf, final int n)
        {
            outer:
            for (int i = 0; i + command.length <= n; i++)
            {
                for (int j = 0; j < command.length; j++)
                {
                    if (Character.toUpperCase(buf[i + j]) != command[j])
                    {
                        continue outer;
                    }
                }
                return true;
            }
            return false;
        }

        private static void close(final Socket s)
        {
            try
            {
                s.close();
            }
            catch (final IOException ignored)
            {
                // closing
            }
        }

        @Override
        public void close() throws IOException
        {
            go.countDown();
            listener.close();
            sockets.forEach(HoldingProxy::close);
        }
    }
}
