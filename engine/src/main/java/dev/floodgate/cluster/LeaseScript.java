package dev.floodgate.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The lease script ({@code lease.lua} beside this class): its text, its SHA-1 for EVALSHA, the arguments of a call
 * and the reading of a reply. Knows no Lettuce type. Immutable.
 */
final class LeaseScript
{
    static final byte LEASE = 'L';
    static final byte REFUND = 'R';
    /** The largest sequence number or amount: Lua numbers are exact below 2^53. */
    static final long MAX_NUMBER = (1L << 53) - 1;

    private final String text;
    private final String sha1;

    private LeaseScript(final String text)
    {
        this.text = text;
        this.sha1 = HexFormat.of().formatHex(sha1(text.getBytes(StandardCharsets.UTF_8)));
    }

    static LeaseScript load()
    {
        try (InputStream in = LeaseScript.class.getResourceAsStream("lease.lua"))
        {
            if (in == null)
            {
                throw new IllegalStateException("lease.lua is missing beside " + LeaseScript.class.getName());
            }
            return new LeaseScript(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    String text()
    {
        return text;
    }

    String sha1()
    {
        return sha1;
    }

    /** ARGV: op, node, seq, amount, limit, window_ms. */
    static byte[][] args(final byte op, final String node, final long seq, final long amount, final ClusterLimit limit)
    {
        return new byte[][] {
            {op}, node.getBytes(StandardCharsets.UTF_8), ascii(seq), ascii(amount), ascii(limit.limit()),
            ascii(limit.windowMs())};
    }

    /**
     * @param reply what Redis answered: {code, tokens, wait_ms, now_ms, asked}.
     * @return the lease it says, or {@link Lease#unavailable()} for any other shape.
     */
    static Lease parse(final Object reply)
    {
        if (!(reply instanceof List<?> list) || list.size() != 5)
        {
            return Lease.unavailable();
        }
        for (final Object item : list)
        {
            if (!(item instanceof Long value) || value < 0)
            {
                return Lease.unavailable();
            }
        }
        final long code = (Long)list.get(0);
        final Lease.Outcome outcome = code == 0 ? Lease.Outcome.APPLIED : code == 1 ? Lease.Outcome.REPLAYED :
            code == 2 ? Lease.Outcome.STALE : null;
        if (outcome == null)
        {
            return Lease.unavailable();
        }
        return new Lease(outcome, (Long)list.get(1), (Long)list.get(2), (Long)list.get(3), (Long)list.get(4));
    }

    private static byte[] ascii(final long value)
    {
        return Long.toString(value).getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] sha1(final byte[] bytes)
    {
        try
        {
            return MessageDigest.getInstance("SHA-1").digest(bytes);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("every JVM has SHA-1", ex);
        }
    }
}
