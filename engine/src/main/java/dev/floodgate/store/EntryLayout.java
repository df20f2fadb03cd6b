package dev.floodgate.store;

import dev.floodgate.Action;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;

/**
 * The value of one quota entry in the table: a bucket, a sharded window or a blocked counter. Values are
 * 64-byte aligned in the file; each window shard has a cache line of its own, so CPUs claiming from one hot
 * key's different shards never share a line.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Generation (64): unique per insertion,        |  0   line 0: header
 *  |                 TOMBSTONE while the janitor ages it out       |
 *  +---------------+---------------+-------------------------------+
 *  |  Kind (8)     |  Action (8)   | reserved (16) | Units version (32)  |  8
 *  +---------------+---------------+-------------------------------+
 *  |                 Limit of the state's units (64)               | 16
 *  |                 Window ms of the state's units (64)           | 24
 *  |                 Created, monotonic ns (64)                    | 32
 *  |                 Touched, monotonic ns (64): last refusal      | 40
 *  |                 State sum when tombstoned (64)                | 48
 *  |                 State (64): bucket TAT                        | 56
 *  +---------------------------------------------------------------+
 *  |                 Tombstoned at, monotonic ns (64)              | 64   line 1: tools
 *  +-------------------------------+-------------------------------+
 *  |  Identifier length, chars (32)|  Label length, bytes (32)     | 72
 *  +-------------------------------+-------------------------------+
 *  |                 Label: identifier's first UTF-8 bytes (384)   | 80..127
 *  +---------------------------------------------------------------+
 *  |                 Shard 0 (64), then 56 bytes padding: a window's window number (40) | used (24), | 128
 *  |                 or a blocked counter's refusals                                              |
 *  |                 ... one line per shard, windows and blocked counters                        |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * Checks write only the state words (and Touched, on refusal), without a lock, with atomic operations. Every
 * other field is written under the segment's update or write lock. Kind, action, created and label never
 * change after insertion. Limit, window and units version say in which policy's units a bucket's TAT word
 * is: the first check that sees a newer policy version converts the word (under the update lock, behind a
 * new generation; see {@code Doors}). A window entry's limit and window are only what it was created under:
 * the window door's arithmetic comes from the policy's regimes.
 */
public final class EntryLayout
{
    public static final byte KIND_BUCKET = 1;
    public static final byte KIND_WINDOW = 2;
    public static final byte KIND_BLOCKED = 3;

    /** Generation of an entry the janitor is ageing out; never handed out by the counter. */
    public static final long TOMBSTONE = -1L;

    public static final int GENERATION_OFFSET = 0;
    public static final int KIND_OFFSET = 8;
    public static final int ACTION_OFFSET = 9;
    public static final int UNITS_VERSION_OFFSET = 12;
    public static final int LIMIT_OFFSET = 16;
    public static final int WINDOW_MS_OFFSET = 24;
    public static final int CREATED_OFFSET = 32;
    public static final int TOUCHED_OFFSET = 40;
    public static final int TOMBSTONE_STATE_OFFSET = 48;
    public static final int STATE_OFFSET = 56;
    public static final int TOMBSTONED_AT_OFFSET = 64;
    /**
     * A live bucket's conversion side record (see {@code BucketConversion}): the TAT word it froze. Shares
     * the tombstone's state field, which only a tombstoned entry uses; a frozen bucket is never idle, so it
     * is never tombstoned while the record matters.
     */
    public static final int CONVERSION_TAT_OFFSET = TOMBSTONE_STATE_OFFSET;
    /** A live bucket's conversion side record: the units the frozen word is in, {@code window ms << 24 | limit}. */
    public static final int CONVERSION_UNITS_OFFSET = TOMBSTONED_AT_OFFSET;
    public static final int IDENTIFIER_LENGTH_OFFSET = 72;
    public static final int LABEL_LENGTH_OFFSET = 76;
    public static final int LABEL_OFFSET = 80;
    public static final int LABEL_MAX_BYTES = 48;
    public static final int SHARDS_OFFSET = 128;
    public static final int SHARD_STRIDE = 64;
    public static final int HEADER_LENGTH = 128;

    private EntryLayout()
    {
    }

    /**
     * @param kind   the entry kind.
     * @param shards the file's shard count.
     * @return the value length in bytes.
     */
    public static int valueLength(final byte kind, final int shards)
    {
        return kind == KIND_BUCKET ? HEADER_LENGTH : SHARDS_OFFSET + shards * SHARD_STRIDE;
    }

    /**
     * @param shard a shard index.
     * @return the offset of that shard's word.
     */
    public static int shardOffset(final int shard)
    {
        return SHARDS_OFFSET + shard * SHARD_STRIDE;
    }

    /**
     * Lays out a new entry's value.
     *
     * @return the value bytes, to insert under the segment's update lock.
     */
    static byte[] newValue(
        final byte kind,
        final Action action,
        final long limit,
        final long windowMs,
        final long nowNanos,
        final long generation,
        final long unitsVersion,
        final long initialState,
        final CharSequence identifier,
        final int shards)
    {
        final byte[] value = new byte[valueLength(kind, shards)];
        final UnsafeBuffer buffer = new UnsafeBuffer(value);
        buffer.putLong(GENERATION_OFFSET, generation);
        buffer.putByte(KIND_OFFSET, kind);
        buffer.putByte(ACTION_OFFSET, (byte)action.ordinal());
        buffer.putInt(UNITS_VERSION_OFFSET, (int)unitsVersion);
        buffer.putLong(LIMIT_OFFSET, limit);
        buffer.putLong(WINDOW_MS_OFFSET, windowMs);
        buffer.putLong(CREATED_OFFSET, nowNanos);
        buffer.putLong(TOUCHED_OFFSET, nowNanos);
        buffer.putLong(STATE_OFFSET, initialState);
        final byte[] label = label(identifier);
        buffer.putInt(IDENTIFIER_LENGTH_OFFSET, identifier.length());
        buffer.putInt(LABEL_LENGTH_OFFSET, label.length);
        buffer.putBytes(LABEL_OFFSET, label);
        return value;
    }

    /**
     * @param identifier an identifier.
     * @return its first UTF-8 bytes, at most {@link #LABEL_MAX_BYTES}, never splitting a character.
     */
    static byte[] label(final CharSequence identifier)
    {
        final int prefixChars = Math.min(identifier.length(), LABEL_MAX_BYTES);
        final byte[] utf8 = identifier.subSequence(0, prefixChars).toString().getBytes(StandardCharsets.UTF_8);
        int length = Math.min(utf8.length, LABEL_MAX_BYTES);
        while (length > 0 && length < utf8.length && (utf8[length] & 0xC0) == 0x80)
        {
            length--; // do not cut inside a multi-byte character
        }
        final byte[] label = new byte[length];
        System.arraycopy(utf8, 0, label, 0, length);
        return label;
    }

    /**
     * Reads an entry's label as text. A label is bytes an attacker chose; tools escape it before printing.
     *
     * @param buffer the entry's value.
     * @return the label.
     */
    public static String readLabel(final org.agrona.DirectBuffer buffer)
    {
        final int length = Math.max(0, Math.min(LABEL_MAX_BYTES, buffer.getInt(LABEL_LENGTH_OFFSET)));
        final byte[] bytes = new byte[length];
        buffer.getBytes(LABEL_OFFSET, bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /**
     * @param value an entry's value.
     * @return its kind.
     */
    public static byte kind(final org.agrona.DirectBuffer value)
    {
        return value.getByte(KIND_OFFSET);
    }

    /**
     * @param value an entry's value.
     * @return its action.
     */
    public static Action action(final org.agrona.DirectBuffer value)
    {
        return Action.fromOrdinal(value.getByte(ACTION_OFFSET));
    }

    /**
     * @param value  an entry's value.
     * @return the number of window shards the value holds (0 for other kinds).
     */
    public static int shardsOf(final org.agrona.DirectBuffer value)
    {
        return kind(value) == KIND_BUCKET ? 0 : (value.capacity() - SHARDS_OFFSET) / SHARD_STRIDE;
    }

    /**
     * A blocked counter is striped over the shard lines like a window, so that refusals racing on one hot key
     * from several CPUs do not serialise on one word: each refusal adds one to its thread's shard.
     *
     * @param value a blocked counter's value (a copy, or in the file).
     * @return the refusals it counts: the sum of its shards.
     */
    public static long blockedCount(final org.agrona.DirectBuffer value)
    {
        long sum = 0;
        for (int shard = 0, n = shardsOf(value); shard < n; shard++)
        {
            sum += value instanceof org.agrona.concurrent.AtomicBuffer atomic ?
                atomic.getLongVolatile(shardOffset(shard)) : value.getLong(shardOffset(shard));
        }
        return sum;
    }

    /**
     * A fingerprint of the state words. Every check that succeeds makes each word it writes larger (the bucket
     * TAT moves forward, a shard word's window or count grows, a blocked count grows), so a changed sum means
     * a check landed; equal sums mean none did.
     *
     * @param value an entry's value.
     * @return the sum of its state words, volatile reads.
     */
    public static long stateSum(final org.agrona.concurrent.AtomicBuffer value)
    {
        if (kind(value) == KIND_BUCKET)
        {
            return value.getLongVolatile(STATE_OFFSET);
        }
        long sum = 0;
        for (int shard = 0, n = shardsOf(value); shard < n; shard++)
        {
            sum += value.getLongVolatile(shardOffset(shard));
        }
        return sum;
    }

    /**
     * Marks an entry as being aged out: records its state fingerprint and the time, then publishes
     * {@link #TOMBSTONE} as its generation, which sends every check holding its address back to the table.
     * Call under the segment's write lock.
     *
     * @param value    an entry's value.
     * @param nowNanos monotonic time.
     */
    public static void tombstone(final org.agrona.concurrent.AtomicBuffer value, final long nowNanos)
    {
        value.putLong(TOMBSTONE_STATE_OFFSET, stateSum(value));
        value.putLong(TOMBSTONED_AT_OFFSET, nowNanos);
        value.putLongVolatile(GENERATION_OFFSET, TOMBSTONE);
    }
}
