package dev.floodgate.tools.cluster;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A few Redis commands over a plain socket (PING, TIME, INFO, SHUTDOWN), one connection per command, so the CLI
 * can look at the server the engine leases from without a second Redis client: the engine's own counters stay
 * internal, and the server counts every script call whoever made it. Plain {@code redis://} only (no TLS).
 *
 * @param host     the server's host.
 * @param port     its port.
 * @param password its password, or null.
 */
public record RedisWire(String host, int port, String password)
{
    private static final int TIMEOUT_MS = 2_000;

    /**
     * @param uri a {@code redis://[[user:]password@]host[:port][/db]} URI.
     * @return the server's address, or null when the URI is not a plain {@code redis://} one (TLS, a socket file).
     */
    public static RedisWire of(final String uri)
    {
        try
        {
            final URI parsed = new URI(uri.trim());
            if (!"redis".equalsIgnoreCase(parsed.getScheme()) || parsed.getHost() == null)
            {
                return null;
            }
            final String info = parsed.getUserInfo();
            final String password = info == null ? null : info.substring(info.indexOf(':') + 1);
            return new RedisWire(parsed.getHost(), parsed.getPort() < 0 ? 6379 : parsed.getPort(),
                password == null || password.isEmpty() ? null : password);
        }
        catch (final URISyntaxException ex)
        {
            return null;
        }
    }

    /** @return true when the server answers PING. */
    public boolean answers()
    {
        try
        {
            return "PONG".equals(call("PING"));
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /** @return the server's clock (TIME) in milliseconds since the epoch. */
    public long timeMs() throws IOException
    {
        if (!(call("TIME") instanceof List<?> time))
        {
            throw new IOException("TIME did not answer with an array");
        }
        return Long.parseLong((String)time.get(0)) * 1000 + Long.parseLong((String)time.get(1)) / 1000;
    }

    /** @return EVALSHA plus EVAL calls the server has run since it started, from {@code INFO commandstats}. */
    public long scriptCalls() throws IOException
    {
        if (!(call("INFO", "commandstats") instanceof String info))
        {
            throw new IOException("INFO commandstats did not answer with text");
        }
        long calls = 0;
        for (final String line : info.split("\r?\n"))
        {
            if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:"))
            {
                final int from = line.indexOf("calls=") + "calls=".length();
                final int comma = line.indexOf(',', from);
                calls += Long.parseLong(line.substring(from, comma < 0 ? line.length() : comma));
            }
        }
        return calls;
    }

    /**
     * @param args the command and its arguments.
     * @return a String (simple or bulk), a Long, a List or null (nil).
     * @throws IOException when the server cannot be reached, closes without a reply, or answers an error.
     */
    public Object call(final String... args) throws IOException
    {
        try (Socket socket = new Socket())
        {
            socket.connect(new InetSocketAddress(host, port), TIMEOUT_MS);
            socket.setSoTimeout(TIMEOUT_MS);
            final OutputStream out = socket.getOutputStream();
            final InputStream in = new BufferedInputStream(socket.getInputStream());
            if (password != null)
            {
                out.write(request("AUTH", password));
                out.flush();
                read(in);
            }
            out.write(request(args));
            out.flush();
            return read(in);
        }
    }

    private static byte[] request(final String... args)
    {
        final ByteArrayOutputStream request = new ByteArrayOutputStream();
        request.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (final String arg : args)
        {
            final byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            request.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            request.writeBytes(bytes);
            request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        return request.toByteArray();
    }

    private static Object read(final InputStream in) throws IOException
    {
        final int type = in.read();
        final String line = line(in);
        switch (type)
        {
            case '+':
                return line;
            case '-':
                throw new IOException("Redis answered: " + line);
            case ':':
                return Long.parseLong(line);
            case '$':
            {
                final int length = Integer.parseInt(line);
                return length < 0 ? null : new String(in.readNBytes(length + 2), 0, length, StandardCharsets.UTF_8);
            }
            case '*':
            {
                final int count = Integer.parseInt(line);
                final List<Object> items = new ArrayList<>(Math.max(0, count));
                for (int i = 0; i < count; i++)
                {
                    items.add(read(in));
                }
                return count < 0 ? null : items;
            }
            default:
                throw new IOException("unexpected reply type " + type + " (" + line + ")");
        }
    }

    private static String line(final InputStream in) throws IOException
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int b;
        while ((b = in.read()) != '\r')
        {
            if (b < 0)
            {
                throw new IOException("the server closed the connection");
            }
            bytes.write(b);
        }
        in.read();
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
