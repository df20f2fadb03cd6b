package dev.floodgate.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy on a free loopback port in front of one server, for playing the network's failures that no RST or FIN
 * announces. {@link #blackHole()} stops forwarding, in both directions, on every connection open at that moment,
 * without closing a socket: the client's bytes are read and dropped, nothing comes back, as behind a firewall that
 * drops packets or an expired NAT entry (except that this proxy's kernel still acknowledges the client's segments,
 * so TCP keep-alive would not notice either). Connections accepted afterwards are forwarded normally, as a new
 * connection to a moved address would be. {@link #delayReplies} holds every server-to-client chunk of connections
 * accepted afterwards for a while before forwarding it, in order: a slow but alive server. {@link #cut()} closes every
 * open connection and holds the ones accepted afterwards unforwarded (their bytes wait in the kernel) until
 * {@link #release()}: a server gone and back when the test says, the clients' attempts of the meantime all still
 * pending then (refused, each would retry on its own schedule, and which came first would be a race).
 *
 * <p>Each connection runs on its own daemon threads, blocking I/O; {@link #close()} closes every socket and joins
 * every thread, so a test leaves nothing behind whatever it asserted. Thread-safe.
 */
public final class FreezableProxy implements AutoCloseable
{
    private static final long JOIN_MS = 5_000;

    private final ServerSocket server;
    private final InetSocketAddress target;
    private final Thread acceptor;
    private final List<Link> links = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final List<Socket> held = new ArrayList<>();
    private final AtomicInteger accepted = new AtomicInteger();
    private volatile long replyDelayNanos;
    private boolean holding;
    private volatile boolean closed;

    private FreezableProxy(final ServerSocket server, final InetSocketAddress target)
    {
        this.server = server;
        this.target = target;
        this.acceptor = new Thread(this::accept, "proxy-accept-" + server.getLocalPort());
        acceptor.setDaemon(true);
    }

    /**
     * @param targetPort the server's port on 127.0.0.1.
     * @return a running proxy to it.
     */
    public static FreezableProxy start(final int targetPort) throws IOException
    {
        final ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final FreezableProxy proxy = new FreezableProxy(server,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort));
        proxy.acceptor.start();
        return proxy;
    }

    /** @return {@code redis://127.0.0.1:<proxy's port>/0}. */
    public String redisUri()
    {
        return "redis://127.0.0.1:" + server.getLocalPort() + "/0";
    }

    /** @return connections accepted so far. */
    public int accepted()
    {
        return accepted.get();
    }

    /** Stops forwarding on every connection open now, in both directions; the sockets stay open. */
    public void blackHole()
    {
        synchronized (links)
        {
            for (final Link link : links)
            {
                link.blackHoled = true;
            }
        }
    }

    /** Closes every connection open now; holds the ones accepted from now on unforwarded until {@link #release()}. */
    public void cut()
    {
        synchronized (links)
        {
            holding = true;
            links.forEach(Link::close);
        }
    }

    /** Forwards the connections held since {@link #cut()}, and those accepted from now on. */
    public void release()
    {
        final List<Socket> pending;
        synchronized (links)
        {
            holding = false;
            pending = new ArrayList<>(held);
            held.clear();
        }
        pending.forEach(this::forward);
    }

    /** @return connections forwarded now (held ones not counted) that this proxy has not seen closed. */
    public int forwarding()
    {
        synchronized (links)
        {
            return (int) links.stream().filter(link -> !link.client.isClosed() && link.upstream.isConnected()).count();
        }
    }

    /** Holds each server-to-client chunk of connections accepted from now on for {@code ms} before forwarding it. */
    public void delayReplies(final long ms)
    {
        replyDelayNanos = TimeUnit.MILLISECONDS.toNanos(ms);
    }

    /** Closes the listening socket and every connection, and waits for every thread to end. */
    @Override
    public void close()
    {
        closed = true;
        closeQuietly(server);
        synchronized (links)
        {
            links.forEach(Link::close);
            held.forEach(FreezableProxy::closeQuietly);
        }
        join(acceptor);
        final List<Thread> all;
        synchronized (links)
        {
            all = new ArrayList<>(threads);
        }
        all.forEach(FreezableProxy::join);
    }

    private void accept()
    {
        while (!closed)
        {
            final Socket client;
            try
            {
                client = server.accept();
            }
            catch (final IOException ex)
            {
                return; // closed
            }
            accepted.incrementAndGet();
            synchronized (links)
            {
                if (holding && !closed)
                {
                    held.add(client);
                    continue;
                }
            }
            forward(client);
        }
    }

    private void forward(final Socket client)
    {
        final Socket upstream = new Socket();
        final Link link = new Link(client, upstream);
        synchronized (links)
        {
            if (closed)
            {
                link.close();
                return;
            }
            links.add(link);
        }
        try
        {
            upstream.connect(target, 2_000);
            client.setTcpNoDelay(true);
            upstream.setTcpNoDelay(true);
        }
        catch (final IOException ex)
        {
            link.close();
            return;
        }
        final long delay = replyDelayNanos;
        spawn(() -> pump(link, client, upstream, 0), "proxy-up-" + client.getPort());
        spawn(() -> pump(link, upstream, client, delay), "proxy-down-" + client.getPort());
    }

    private void spawn(final Runnable task, final String name)
    {
        final Thread thread = new Thread(task, name);
        thread.setDaemon(true);
        synchronized (links)
        {
            if (closed)
            {
                return;
            }
            threads.add(thread);
        }
        thread.start();
    }

    /** Copies {@code from} to {@code to} until either closes; drops what it reads once the link is black-holed. */
    private void pump(final Link link, final Socket from, final Socket to, final long delayNanos)
    {
        final BlockingQueue<Chunk> delayed = new LinkedBlockingQueue<>();
        final Thread writer = delayNanos > 0 ? new Thread(() -> writeDelayed(link, delayed, to),
            Thread.currentThread().getName() + "-delayed") : null;
        if (writer != null)
        {
            writer.setDaemon(true);
            writer.start();
        }
        try
        {
            final InputStream in = from.getInputStream();
            final OutputStream out = to.getOutputStream();
            final byte[] buffer = new byte[16 * 1024];
            int n;
            while ((n = in.read(buffer)) > 0)
            {
                if (link.blackHoled)
                {
                    continue;
                }
                if (writer != null)
                {
                    delayed.add(new Chunk(System.nanoTime() + delayNanos, buffer.clone(), n));
                }
                else
                {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
        }
        catch (final IOException ex)
        {
            // closed by either side, or by close()
        }
        finally
        {
            if (!link.blackHoled)
            {
                link.close(); // a real close passes on; a black-holed link stays open until the proxy closes
            }
            if (writer != null)
            {
                writer.interrupt();
                join(writer);
            }
        }
    }

    private static void writeDelayed(final Link link, final BlockingQueue<Chunk> delayed, final Socket to)
    {
        try
        {
            final OutputStream out = to.getOutputStream();
            while (true)
            {
                final Chunk chunk = delayed.take();
                final long wait = chunk.dueNanos - System.nanoTime();
                if (wait > 0)
                {
                    TimeUnit.NANOSECONDS.sleep(wait); // the delay being played, not a wait for another thread
                }
                if (!link.blackHoled)
                {
                    out.write(chunk.bytes, 0, chunk.length);
                    out.flush();
                }
            }
        }
        catch (final InterruptedException | IOException ex)
        {
            // the pump ended
        }
    }

    private static void join(final Thread thread)
    {
        try
        {
            thread.join(JOIN_MS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive())
        {
            throw new IllegalStateException(thread.getName() + " did not end within " + JOIN_MS + " ms");
        }
    }

    private static void closeQuietly(final AutoCloseable closeable)
    {
        try
        {
            closeable.close();
        }
        catch (final Exception ex)
        {
            // closing anyway
        }
    }

    private record Chunk(long dueNanos, byte[] bytes, int length)
    {
    }

    private static final class Link
    {
        final Socket client;
        final Socket upstream;
        volatile boolean blackHoled;

        Link(final Socket client, final Socket upstream)
        {
            this.client = client;
            this.upstream = upstream;
        }

        void close()
        {
            closeQuietly(client);
            closeQuietly(upstream);
        }
    }
}
