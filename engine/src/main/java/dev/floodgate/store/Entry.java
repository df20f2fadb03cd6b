package dev.floodgate.store;

import dev.floodgate.Action;
import org.agrona.concurrent.UnsafeBuffer;

import static dev.floodgate.store.EntryLayout.*;

/**
 * The flyweight over the value of one quota entry (a bucket, a sharded window, a blocked counter or a cluster
 * lease), in the file or a copy, laid out as {@link EntryLayout} draws it, and the owner of the header every kind
 * shares (generation, kind, action, units, created, label, touched, the tombstone's record). Each kind's own
 * words are reached through this flyweight by {@link BucketWords}, {@link ShardWords} (windows and blocked
 * counters) and {@link LeaseWords}. Nothing outside these four classes and the layout knows an offset, and each
 * word has one owner among them (where two words share an offset, as line 0's state word is a bucket's TAT or a
 * lease's balance, each kind's class owns its own); every access names its memory order ({@code Volatile},
 * {@code Acquire}, {@code Release}, plain) and what it may race with.
 *
 * <p><b>Who writes what.</b> Checks write only the state words (and Touched, on refusal), without a lock, with
 * compare-and-sets. Every other field is written under the segment's update or write lock. Kind, action,
 * created and label never change after insertion. Limit, window and units version say in which policy's units
 * a bucket's TAT word is: the first check that sees a newer policy version converts the word (under the update
 * lock, behind a new generation; see {@code BucketConversion}). A window entry's limit and window are only what
 * it was created under: the window door's arithmetic comes from the policy's regimes.
 *
 * <p><b>Writes without a lock never land on reclaimed memory.</b> Chronicle Map reuses a removed entry's
 * memory for the next insert, and a check holds its entry's address without a lock. So every lock-free write
 * goes through a {@code ...IfCurrent} method, or follows this protocol exactly: load the word (volatile),
 * then {@link #isCurrentAcquire} (the generation the caller resolved), then compare-and-set against the word
 * loaded. The janitor changes the generation before the memory can be reused, and a compare-and-set only lands
 * on the word the caller read while the entry was still its own.
 *
 * <p>Not thread-safe as an object (one flyweight per {@code QuotaSlot}, per janitor, per caller); the memory
 * it wraps is shared as described. Allocates nothing after construction.
 */
public final class Entry
{
    public static final byte KIND_BUCKET = 1;
    public static final byte KIND_WINDOW = 2;
    public static final byte KIND_BLOCKED = 3;
    /** The node's balance of tokens leased from a cluster bucket, and who refills it (issue 12). */
    public static final byte KIND_LEASE = 4;

    /** Generation of an entry the janitor is ageing out; never handed out by the counter. */
    public static final long TOMBSTONE = -1L;

    /** The concrete type, so each access is a direct call the JIT inlines; package-private for the kinds' words. */
    UnsafeBuffer value;

    /** An unwrapped flyweight: {@link #wrap} it before use. */
    public Entry()
    {
    }

    /** @param value an entry's value, in the file or a copy. */
    public Entry(final UnsafeBuffer value)
    {
        this.value = value;
    }

    /**
     * @param value an entry's value, in the file or a copy.
     * @return this flyweight, now over {@code value}.
     */
    public Entry wrap(final UnsafeBuffer value)
    {
        this.value = value;
        return this;
    }

    /**
     * Copies the value, plain loads (under the segment's lock, for a reader that must not create the entry).
     *
     * @param into a buffer of exactly this value's length.
     * @return false, copying nothing, when the lengths differ (another kind's value).
     */
    boolean copyTo(final UnsafeBuffer into)
    {
        if (into.capacity() != value.capacity())
        {
            return false;
        }
        into.putBytes(0, value, 0, value.capacity());
        return true;
    }

    /** @return the length of the wrapped value in bytes. */
    public int length()
    {
        return value.capacity();
    }

    // ---- the generation: the guard of every lock-free write ----

    /** @return the generation word, acquire: orders the caller's later loads and writes after it. */
    public long generationAcquire()
    {
        return value.getLongAcquire(GENERATION_OFFSET);
    }

    /** @return the generation word, volatile (the lock holders' read). */
    public long generationVolatile()
    {
        return value.getLongVolatile(GENERATION_OFFSET);
    }

    /**
     * @param generation the generation the caller resolved the entry at.
     * @return true while the entry is still that one: the caller's address may be written (acquire load).
     */
    public boolean isCurrentAcquire(final long generation)
    {
        return value.getLongAcquire(GENERATION_OFFSET) == generation;
    }

    /** @return true when the janitor or a reset is ageing the entry out (volatile load). */
    public boolean isTombstonedVolatile()
    {
        return value.getLongVolatile(GENERATION_OFFSET) == TOMBSTONE;
    }

    /**
     * Publishes a new generation with a release store: every check holding the old one goes back to the table.
     * Under the segment's update or write lock.
     */
    public void publishGenerationRelease(final long generation)
    {
        value.putLongRelease(GENERATION_OFFSET, generation);
    }

    /** As {@link #publishGenerationRelease}, with a volatile store (the janitor's revival). Under the write lock. */
    public void publishGenerationVolatile(final long generation)
    {
        value.putLongVolatile(GENERATION_OFFSET, generation);
    }

    // ---- fields written once at insertion, or under the lock: plain loads ----

    /** @return the kind byte. */
    public byte kind()
    {
        return value.getByte(KIND_OFFSET);
    }

    /** @return the action's ordinal as stored (may be out of range in a damaged copy). */
    public int actionOrdinal()
    {
        return value.getByte(ACTION_OFFSET);
    }

    /** @return the action. */
    public Action action()
    {
        return Action.fromOrdinal(value.getByte(ACTION_OFFSET));
    }

    /** @return the units version, as stored (32 bits). Under the lock, or read together with the generation. */
    public int unitsVersion()
    {
        return value.getInt(UNITS_VERSION_OFFSET);
    }

    /** Publishes the units version with a release store: the conversion's last step. Under the update lock. */
    public void publishUnitsVersionRelease(final int version)
    {
        value.putIntRelease(UNITS_VERSION_OFFSET, version);
    }

    /** @return the limit the state's units (or the window entry's creation) belong to; plain load. */
    public long limit()
    {
        return value.getLong(LIMIT_OFFSET);
    }

    /** @return the window in ms the state's units belong to; plain load. */
    public long windowMs()
    {
        return value.getLong(WINDOW_MS_OFFSET);
    }

    /** @return the limit, volatile: a lock-free reader's load while a conversion may rewrite it. */
    public long limitVolatile()
    {
        return value.getLongVolatile(LIMIT_OFFSET);
    }

    /** @return the window in ms, volatile: a lock-free reader's load while a conversion may rewrite it. */
    public long windowMsVolatile()
    {
        return value.getLongVolatile(WINDOW_MS_OFFSET);
    }

    /** @return the units version (32 bits), volatile: a lock-free reader's load. */
    public int unitsVersionVolatile()
    {
        return value.getIntVolatile(UNITS_VERSION_OFFSET);
    }

    /** Stores new units, plain; under the update lock, behind a new generation and a frozen word. */
    public void putUnits(final long limit, final long windowMs)
    {
        value.putLong(LIMIT_OFFSET, limit);
        value.putLong(WINDOW_MS_OFFSET, windowMs);
    }

    /** @return when the entry was created, monotonic ns. */
    public long createdNanos()
    {
        return value.getLong(CREATED_OFFSET);
    }

    /** @return the identifier's length in chars. */
    public int identifierLength()
    {
        return value.getInt(IDENTIFIER_LENGTH_OFFSET);
    }

    /** @return the label as text: bytes an attacker chose; tools escape it before printing. */
    public String label()
    {
        final byte[] bytes = new byte[labelLength()];
        value.getBytes(LABEL_OFFSET, bytes);
        return Wtf8.decode(bytes);
    }

    /**
     * Copies the label's bytes, the ones {@link #label} decodes, without allocating: for a reader that compares
     * labels of many entries and keeps few.
     *
     * @param into at least {@link EntryLayout#LABEL_MAX_BYTES} long.
     * @return how many bytes were copied to its start.
     */
    public int labelBytes(final byte[] into)
    {
        final int length = labelLength();
        value.getBytes(LABEL_OFFSET, into, 0, length);
        return length;
    }

    private int labelLength()
    {
        return Math.max(0, Math.min(LABEL_MAX_BYTES, value.getInt(LABEL_LENGTH_OFFSET)));
    }

    // ---- touched ----

    /** @return the touch time, volatile. */
    public long touchedVolatile()
    {
        return value.getLongVolatile(TOUCHED_OFFSET);
    }

    /**
     * Moves the touch time from {@code expected} to {@code now} while the entry is still {@code generation}'s
     * (loaded after {@code expected}, acquire); losing to another touch is as good.
     */
    public void touchIfCurrent(final long generation, final long expected, final long now)
    {
        if (value.getLongAcquire(GENERATION_OFFSET) == generation)
        {
            value.compareAndSetLong(TOUCHED_OFFSET, expected, now);
        }
    }

    // ---- reclamation ----

    /**
     * A fingerprint of the state words, to tell whether a check that passed its generation test before the
     * tombstone landed after it. Such a check changes a word by one compare-and-set: the bucket TAT moves
     * forward; a blocked count grows; a window shard's count grows in its window, or the word moves to a newer
     * window (its tag changes, or its count does and the newest number grows). So a changed sum means a check
     * landed. An equal sum means none did, unless in-flight writes cancel exactly (a claim and its own give-back
     * do, leaving the state as it was).
     *
     * @return the sum of the state words (a window's shard words and newest numbers), volatile loads.
     */
    public long stateSumVolatile()
    {
        final byte kind = kind();
        return kind == KIND_BUCKET ? BucketWords.tatVolatile(this) : kind == KIND_LEASE ?
            LeaseWords.stateSumVolatile(this) : ShardWords.stateSumVolatile(this, kind == KIND_WINDOW);
    }

    /** @return the fingerprint recorded when the entry was tombstoned. */
    public long tombstoneStateSum()
    {
        return value.getLong(TOMBSTONE_STATE_OFFSET);
    }

    /** @return when the entry was tombstoned, monotonic ns. */
    public long tombstonedAtNanos()
    {
        return value.getLong(TOMBSTONED_AT_OFFSET);
    }

    /**
     * Marks the entry as being aged out: records the state fingerprint the caller took and the time, then
     * publishes {@link #TOMBSTONE} as its generation (volatile store), which sends every check holding its address
     * back to the table. Under the segment's write lock.
     *
     * <p>The caller takes the fingerprint ({@link #stateSumVolatile}) <em>before</em> it judges the entry idle:
     * checks take no lock, so a check may write between the judgement and the tombstone; with the fingerprint taken
     * first, that write is outside it and revives the entry when its grace ends. Taken here, after the judgement,
     * it held such a write, and the entry was reclaimed with the check's count in it (found by review).
     *
     * @param nowNanos monotonic time.
     * @param stateSum the fingerprint, taken before the idle test.
     */
    public void tombstoneVolatile(final long nowNanos, final long stateSum)
    {
        value.putLong(TOMBSTONE_STATE_OFFSET, stateSum);
        value.putLong(TOMBSTONED_AT_OFFSET, nowNanos);
        value.putLongVolatile(GENERATION_OFFSET, TOMBSTONE);
    }
}
