package dev.floodgate.cluster;

import dev.floodgate.Action;
import dev.floodgate.store.Wtf8;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * The Redis key of one (identifier, action)'s cluster bucket: {@code floodgate:<action>:<identifier>}, or
 * {@code floodgate:<action>#<SHA-256 of the identifier>} for an identifier longer than {@link #MAX_RAW_BYTES}.
 * Immutable.
 *
 * <p>Identifiers are chosen by clients, so the key is built to be injective: the action is one of a closed set of
 * names made of {@code [a-z_]}, and no {@code floodgate:<action>:} or {@code floodgate:<action>#} is a prefix of
 * another action's, so whatever an identifier holds (':', '{', '}', newlines, "auth:x") it stays inside its own
 * action's keys. The identifier's UTF-16 is encoded as UTF-8, except that a lone surrogate is written as its own
 * three bytes ({@link Wtf8}) instead of '?': two distinct strings never share a key, as in the node's table. Long
 * identifiers are digested so an attacker cannot make Redis keep megabyte keys.
 *
 * <p>No hash tag: each script call touches one key, and a tag on the action would put all of an action's buckets
 * on one Redis Cluster shard.
 */
public final class LeaseKey
{
    /** The longest identifier, in encoded bytes, kept as it is in the key. */
    public static final int MAX_RAW_BYTES = 256;

    private final byte[] bytes;

    private LeaseKey(final byte[] bytes)
    {
        this.bytes = bytes;
    }

    /**
     * @param action     the action.
     * @param identifier the identifier, not empty.
     * @return its key.
     */
    public static LeaseKey of(final Action action, final CharSequence identifier)
    {
        Objects.requireNonNull(action, "action");
        Objects.requireNonNull(identifier, "identifier");
        if (identifier.length() == 0)
        {
            throw new IllegalArgumentException("identifier is empty: expected at least one character");
        }
        final byte[] encoded = Wtf8.encode(identifier);
        final boolean raw = encoded.length <= MAX_RAW_BYTES;
        final byte[] tail = raw ? encoded : HexFormat.of().formatHex(sha256(encoded)).getBytes(StandardCharsets.US_ASCII);
        final byte[] prefix = ("floodgate:" + action.configPrefix() + (raw ? ":" : "#")).getBytes(StandardCharsets.US_ASCII);
        final byte[] key = Arrays.copyOf(prefix, prefix.length + tail.length);
        System.arraycopy(tail, 0, key, prefix.length, tail.length);
        return new LeaseKey(key);
    }

    /** @return the key's bytes (a copy). */
    public byte[] bytes()
    {
        return bytes.clone();
    }

    byte[] shared()
    {
        return bytes;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof LeaseKey key && Arrays.equals(bytes, key.bytes);
    }

    @Override
    public int hashCode()
    {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString()
    {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] sha256(final byte[] bytes)
    {
        try
        {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("every JVM has SHA-256", ex);
        }
    }
}
