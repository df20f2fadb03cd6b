package dev.floodgate.store;

import dev.floodgate.Action;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The layout of one quota entry's value in the file (its key is {@link KeyHasher}'s): the offsets {@link Entry}
 * (the header) and {@link BucketWords}, {@link ShardWords} and {@link LeaseWords} (each kind's own words) read and
 * write, derived from named sizes, the value's length per kind, and a new entry's first bytes. Values are 64-byte
 * aligned in the file; each window shard has a cache line of its own, so CPUs claiming from one hot key's
 * different shards never share a line. What each word means, who writes it and in which memory order is said by
 * the class that reads it; the lock-free write protocol is {@link Entry}'s.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Generation (64): unique per insertion,        |  0   line 0: header
 *  |                 TOMBSTONE while the janitor ages it out       |
 *  +---------------+---------------+---------------+---------------+
 *  |  Kind (8)     |  Action (8)   | reserved (16) | Units version (32)  |  8
 *  +---------------+---------------+---------------+---------------+
 *  |                 Limit of the state's units (64)               | 16
 *  |                 Window ms of the state's units (64)           | 24
 *  |                 Created, monotonic ns (64)                    | 32
 *  |                 Touched, monotonic ns (64): last refusal      | 40
 *  |                 State sum when tombstoned (64)                | 48   or a conversion's frozen TAT
 *  |                 State (64): bucket TAT, or lease balance      | 56
 *  +---------------------------------------------------------------+
 *  |                 Tombstoned at, monotonic ns (64)              | 64   line 1: tools; or a conversion's units
 *  +-------------------------------+-------------------------------+
 *  |  Identifier length, chars (32)|  Label length, bytes (32)     | 72
 *  +-------------------------------+-------------------------------+
 *  |                 Label: identifier's first WTF-8 bytes (384)   | 80..127
 *  +---------------------------------------------------------------+
 *  |                 Shard 0 word (64): a window's                 | 128  line 2: shard 0
 *  |                 window tag (22) | used (42),                   |
 *  |                 or a blocked counter's refusals               |
 *  |                 Shard 0 newest window number (64): windows    | 136
 *  |                 48 bytes padding                              | 144
 *  +---------------------------------------------------------------+
 *  |                 ... one line per shard, windows and blocked counters
 *  +---------------------------------------------------------------+
 *
 *  A lease (KIND_LEASE: the node's share of a cluster bucket) has a refill line after the header, then a balance
 *  line per shard:
 *  +---------------------------------------------------------------+
 *  |                 Next sequence number (64): only grows         | 128  line 2: the refill's
 *  +---------------------------------------+-----------------------+
 *  |  Refill since, monotonic ms (40)      |  Refiller (24)        | 136  0: no refill in flight
 *  +---------------------------------------+-----------------------+
 *  |                 Cluster empty until, monotonic ms (64)        | 144  no lease asked before then
 *  |                 40 bytes padding                              | 152
 *  +---------------------------------------------------------------+
 *  |                 Balance line 0 (64): tokens taken from the    | 192  line 3: balance line 0
 *  |                 central balance by the threads whose probe    |
 *  |                 picks this line, spent by them                |
 *  |                 56 bytes padding                              | 200
 *  +---------------------------------------------------------------+
 *  |                 ... one balance line per shard
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * The lease's central balance sits where a bucket's TAT does (line 0, read with the generation by every check): the
 * grants land there. A spend takes from its CPU's balance line, so two CPUs spending one key never share a line,
 * and moves a chunk from the central balance when its line is short (see {@code LeaseBalance}). The refill words
 * have their own line, so a fetch starting or ending does not bounce a line a spend writes. A lease written by an
 * engine before balance lines ({@link #LEASE_BASE_LENGTH}, no lines) is still read: its spends use the central
 * balance alone.
 */
public final class EntryLayout
{
    static final int WORD = Long.BYTES;
    static final int LINE = 64;

    static final int GENERATION_OFFSET = 0;
    static final int KIND_OFFSET = GENERATION_OFFSET + WORD;
    static final int ACTION_OFFSET = KIND_OFFSET + Byte.BYTES;
    static final int UNITS_VERSION_OFFSET = ACTION_OFFSET + Byte.BYTES + Short.BYTES;
    static final int LIMIT_OFFSET = UNITS_VERSION_OFFSET + Integer.BYTES;
    static final int WINDOW_MS_OFFSET = LIMIT_OFFSET + WORD;
    static final int CREATED_OFFSET = WINDOW_MS_OFFSET + WORD;
    static final int TOUCHED_OFFSET = CREATED_OFFSET + WORD;
    static final int TOMBSTONE_STATE_OFFSET = TOUCHED_OFFSET + WORD;
    static final int STATE_OFFSET = TOMBSTONE_STATE_OFFSET + WORD;
    /** Line 1 starts here: what tools read, and the tombstone's time. */
    static final int TOMBSTONED_AT_OFFSET = STATE_OFFSET + WORD;
    /**
     * A live bucket's conversion side record (see {@code BucketConversion}): the TAT word it froze. Shares
     * the tombstone's state field, which only a tombstoned entry uses; a frozen bucket is never idle, so it
     * is never tombstoned while the record matters.
     */
    static final int CONVERSION_TAT_OFFSET = TOMBSTONE_STATE_OFFSET;
    /** A live bucket's conversion side record: the units the frozen word is in, {@code window ms << 34 | limit}. */
    static final int CONVERSION_UNITS_OFFSET = TOMBSTONED_AT_OFFSET;
    static final int IDENTIFIER_LENGTH_OFFSET = TOMBSTONED_AT_OFFSET + WORD;
    static final int LABEL_LENGTH_OFFSET = IDENTIFIER_LENGTH_OFFSET + Integer.BYTES;
    static final int LABEL_OFFSET = LABEL_LENGTH_OFFSET + Integer.BYTES;
    /** A bucket's whole value: two cache lines. */
    public static final int HEADER_LENGTH = 2 * LINE;
    /** The most bytes of an identifier an entry keeps: its label. */
    public static final int LABEL_MAX_BYTES = HEADER_LENGTH - LABEL_OFFSET;
    static final int SHARDS_OFFSET = HEADER_LENGTH;
    static final int SHARD_STRIDE = LINE;
    /** Within a shard's line, after its word: the newest window number the word may hold (windows only). */
    static final int SHARD_NEWEST_OFFSET = WORD;
    /** A lease's next sequence number for its cluster bucket. */
    static final int LEASE_SEQUENCE_OFFSET = HEADER_LENGTH;
    /** A lease's refill-in-flight word: {@code since ms << 24 | pid}, 0 when none. */
    static final int LEASE_REFILL_OFFSET = LEASE_SEQUENCE_OFFSET + WORD;
    /** A lease's time, monotonic ms, before which the cluster's bucket is known too empty to ask. */
    static final int LEASE_EMPTY_UNTIL_OFFSET = LEASE_REFILL_OFFSET + WORD;
    /** A lease's header and refill line: the whole value of a lease an engine before balance lines wrote. */
    public static final int LEASE_BASE_LENGTH = HEADER_LENGTH + LINE;
    /** A lease's first balance line; one per shard, {@link #SHARD_STRIDE} apart. */
    static final int LEASE_LINES_OFFSET = LEASE_BASE_LENGTH;

    static
    {
        if (TOMBSTONED_AT_OFFSET != LINE || STATE_OFFSET + WORD > LINE || LABEL_MAX_BYTES != 48)
        {
            throw new ExceptionInInitializerError("entry layout: line 0 must hold exactly the check's words");
        }
    }

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
        return kind == Entry.KIND_BUCKET ? HEADER_LENGTH : kind == Entry.KIND_LEASE ?
            LEASE_LINES_OFFSET + shards * SHARD_STRIDE : SHARDS_OFFSET + shards * SHARD_STRIDE;
    }

    /**
     * @return whether an entry of {@code kind} may be {@code length} bytes long in a file of {@code shards}: its
     * kind's {@link #valueLength}, or for a lease also {@link #LEASE_BASE_LENGTH} (written before balance lines).
     */
    public static boolean isValueLength(final byte kind, final int shards, final long length)
    {
        return length == valueLength(kind, shards) || kind == Entry.KIND_LEASE && length == LEASE_BASE_LENGTH;
    }

    // ---- a new entry ----

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
        // a bucket starts full (its TAT); a lease starts empty, at a sequence number no earlier entry used
        buffer.putLong(kind == Entry.KIND_LEASE ? LEASE_SEQUENCE_OFFSET : STATE_OFFSET, initialState);
        final byte[] label = label(identifier);
        buffer.putInt(IDENTIFIER_LENGTH_OFFSET, identifier.length());
        buffer.putInt(LABEL_LENGTH_OFFSET, label.length);
        buffer.putBytes(LABEL_OFFSET, label);
        return value;
    }

    /**
     * @param identifier an identifier.
     * @return its first bytes in {@link Wtf8} (UTF-8 keeping lone surrogates), at most {@link #LABEL_MAX_BYTES},
     * never splitting a character.
     */
    static byte[] label(final CharSequence identifier)
    {
        int prefixChars = Math.min(identifier.length(), LABEL_MAX_BYTES);
        if (prefixChars < identifier.length() && Character.isHighSurrogate(identifier.charAt(prefixChars - 1)))
        {
            prefixChars--; // cut before a pair, not inside it: a half cut off is a lone surrogate the identifier
                           // does not have, and `dump --identifier` never matched (found by review)
        }
        // a lone surrogate the identifier has keeps a form of its own: written as '?', dump and top showed "a",
        // U+D800, "b" and "a?b" alike (found by review)
        final byte[] utf8 = Wtf8.encode(identifier.subSequence(0, prefixChars));
        int length = Math.min(utf8.length, LABEL_MAX_BYTES);
        while (length > 0 && length < utf8.length && (utf8[length] & 0xC0) == 0x80)
        {
            length--; // do not cut inside a multi-byte character
        }
        final byte[] label = new byte[length];
        System.arraycopy(utf8, 0, label, 0, length);
        return label;
    }
}
