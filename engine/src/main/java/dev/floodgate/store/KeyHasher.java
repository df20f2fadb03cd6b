package dev.floodgate.store;

import dev.floodgate.Action;

/**
 * Derives the fixed 16-byte table key of an (identifier, action, kind) with SipHash-2-4-128 under the
 * file's random secret.
 *
 * <p>Keys are constant-size, so Chronicle Map never sees attacker-shaped or oversized keys, and identifiers
 * chosen to collide under an unkeyed hash cannot pile into one segment without knowing the secret. The
 * three kinds of one (identifier, action) share all but the last byte, so the janitor can find a blocked
 * counter's bucket without knowing the identifier:
 *
 * <pre>
 *  byte 0                               8                              15  16
 *  +------------------------------------+-------------------------------+----+
 *  |  hash word 0 (little-endian)       |  hash word 1, bits 8..63      |kind|
 *  +------------------------------------+-------------------------------+----+
 * </pre>
 *
 * Kind 0 is reserved for the file's own records (see {@link FileHeader}), so no quota key can equal one.
 * Thread-safe: holds only the immutable secret.
 */
public final class KeyHasher
{
    public static final int KEY_LENGTH = 16;
    public static final int KIND_INDEX = 15;

    private final long k0;
    private final long k1;

    /**
     * @param k0 first secret word.
     * @param k1 second secret word.
     */
    public KeyHasher(final long k0, final long k1)
    {
        this.k0 = k0;
        this.k1 = k1;
    }

    /**
     * @param identifier the identifier, hashed as its UTF-16 code units.
     * @param action     the action.
     * @param kind       one of the {@link Entry} kinds.
     * @return a new 16-byte key.
     */
    public byte[] key(final CharSequence identifier, final Action action, final byte kind)
    {
        final long[] hash = hash(identifier, action.ordinal());
        final byte[] key = new byte[KEY_LENGTH];
        putLongLE(key, 0, hash[0]);
        putLongLE(key, 8, hash[1]);
        key[KIND_INDEX] = kind;
        return key;
    }

    /**
     * @param key  a quota key.
     * @param kind another kind.
     * @return the key of the same (identifier, action) for that kind.
     */
    public static byte[] withKind(final byte[] key, final byte kind)
    {
        final byte[] other = key.clone();
        other[KIND_INDEX] = kind;
        return other;
    }

    long[] hash(final CharSequence s, final int prefix)
    {
        final long[] v = {
            0x736f6d6570736575L ^ k0, 0x646f72616e646f6dL ^ k1 ^ 0xeeL,
            0x6c7967656e657261L ^ k0, 0x7465646279746573L ^ k1};
        // first block: the action, so that equal identifiers of different actions never share a key
        compress(v, prefix);
        final int chars = s.length();
        final int whole = chars & ~3;
        for (int i = 0; i < whole; i += 4)
        {
            compress(v, (s.charAt(i) & 0xFFFFL) | (s.charAt(i + 1) & 0xFFFFL) << 16 |
                (s.charAt(i + 2) & 0xFFFFL) << 32 | (s.charAt(i + 3) & 0xFFFFL) << 48);
        }
        long last = ((8L + 2L * chars) & 0xFF) << 56;
        for (int i = whole, shift = 0; i < chars; i++, shift += 16)
        {
            last |= (s.charAt(i) & 0xFFFFL) << shift;
        }
        compress(v, last);
        v[2] ^= 0xeeL;
        rounds(v, 4);
        final long h0 = v[0] ^ v[1] ^ v[2] ^ v[3];
        v[1] ^= 0xddL;
        rounds(v, 4);
        return new long[] {h0, v[0] ^ v[1] ^ v[2] ^ v[3]};
    }

    private static void compress(final long[] v, final long m)
    {
        v[3] ^= m;
        rounds(v, 2);
        v[0] ^= m;
    }

    private static void rounds(final long[] v, final int n)
    {
        long v0 = v[0];
        long v1 = v[1];
        long v2 = v[2];
        long v3 = v[3];
        for (int i = 0; i < n; i++)
        {
            v0 += v1;
            v1 = Long.rotateLeft(v1, 13) ^ v0;
            v0 = Long.rotateLeft(v0, 32);
            v2 += v3;
            v3 = Long.rotateLeft(v3, 16) ^ v2;
            v0 += v3;
            v3 = Long.rotateLeft(v3, 21) ^ v0;
            v2 += v1;
            v1 = Long.rotateLeft(v1, 17) ^ v2;
            v2 = Long.rotateLeft(v2, 32);
        }
        v[0] = v0;
        v[1] = v1;
        v[2] = v2;
        v[3] = v3;
    }

    static void putLongLE(final byte[] bytes, final int offset, final long value)
    {
        for (int i = 0; i < 8; i++)
        {
            bytes[offset + i] = (byte)(value >>> (8 * i));
        }
    }

    /**
     * @param key a key in the file (or anywhere).
     * @return a copy of its {@link #KEY_LENGTH} bytes.
     */
    public static byte[] copyKey(final org.agrona.DirectBuffer key)
    {
        final byte[] bytes = new byte[KEY_LENGTH];
        key.getBytes(0, bytes);
        return bytes;
    }
}
