package dev.floodgate.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A few Redis commands over a plain socket, for tests that look at the server beside the client under test (TIME,
 * PTTL, SCRIPT FLUSH, SHUTDOWN): so LocalRedis and the tests' own checks never depend on Lettuce. One connection
 * per command; not for load.
 */
public final class Resp
{
    private Resp()
    {
    }

    /**
     * @param port      the server's port on 127.0.0.1.
     * @param timeoutMs connect and read timeout.
     * @param args      the command and its arguments.
     * @return the reply: a String (simple or bulk), a Long, a List, null (nil) or a {@link RedisError}.
     * @throws IOException if the server cannot be reached or closes the connection without a reply.
     */
    public static Object call(final int port, final int timeoutMs, final Object... args) throws IOException
    {
        try (Socket socket = new Socket())
        {
            socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            final OutputStream out = socket.getOutputStream();
            final ByteArrayOutputStream request = new ByteArrayOutputStream();
            request.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (final Object arg : args)
            {
                final byte[] bytes = arg instanceof byte[] raw ? raw : arg.toString().getBytes(StandardCharsets.UTF_8);
                request.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                request.writeBytes(bytes);
                request.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.write(request.toByteArray());
            out.flush();
            return read(new BufferedInputStream(socket.getInputStream()));
        }
    }

    /** @return the server's clock (TIME) in milliseconds since the epoch, rounded down. */
    public static long timeMs(final int port) throws IOException
    {
        final List<?> time = (List<?>)call(port, 2_000, "TIME");
        return Long.parseLong((String)time.get(0)) * 1000 + Long.parseLong((String)time.get(1)) / 1000;
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
                return new RedisError(line);
            case ':':
                return Long.parseLong(line);
            case '$':
            {
                final int length = Integer.parseInt(line);
                if (length < 0)
                {
                    return null;
                }
                final byte[] bytes = in.readNBytes(length + 2);
                return new String(bytes, 0, length, StandardCharsets.UTF_8);
            }
            case '*':
            {
                final int count = Integer.parseInt(line);
                if (count < 0)
                {
                    return null;
                }
                final List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++)
                {
                    items.add(read(in));
                }
                return items;
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

    /** An error reply. @param message its text, e.g. {@code NOSCRIPT ...}. */
    public record RedisError(String message)
    {
    }
}
