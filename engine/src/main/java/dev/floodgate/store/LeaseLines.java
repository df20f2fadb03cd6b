package dev.floodgate.store;

import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

import static dev.floodgate.store.EntryLayout.GENERATION_OFFSET;
import static dev.floodgate.store.EntryLayout.LEASE_LINES_OFFSET;
import static dev.floodgate.store.EntryLayout.SHARD_STRIDE;

/**
 * A lease entry's balance lines and generation word by address (issue 12's warm spend): the same words
 * {@link LeaseWords#lineVolatile}, {@link LeaseWords#casLine} and {@link Entry#isCurrentAcquire} reach, with the
 * entry's length checked once, here, instead of on every access. Through the buffer each of a spend's three
 * accesses reloaded the entry's buffer, its capacity, address and array and checked its bounds: 33 to 41 of the
 * clustered check's instructions, where these take one load each, and the line a probe picks needs no test
 * ({@link #lineFor}).
 *
 * <p>Writes follow {@link Entry}'s protocol exactly as {@link LeaseWords}' do: load the line
 * ({@link #lineVolatile}), pass {@link #isCurrentAcquire}, then {@link #casLine} against the word loaded.
 *
 * <p>Made on the cold path, one per lease slot; immutable, so thread-safe. Valid while the entry's memory stays
 * mapped, as the buffer it was made from is (the engine's owner keeps the file mapped).
 */
public final class LeaseLines
{
    private final UnsafeBuffer value; // kept reachable: a copy's array or a direct buffer lives as long as this
    private final Object base;
    private final long generationAddress;
    private final long firstLine;
    private final int count;

    /** @param entry a lease entry, wrapped. */
    public LeaseLines(final Entry entry)
    {
        this.value = entry.value;
        this.base = value.byteArray();
        this.generationAddress = value.addressOffset() + GENERATION_OFFSET;
        this.firstLine = value.addressOffset() + LEASE_LINES_OFFSET;
        this.count = Math.max(0, LeaseWords.lineCount(entry)); // a value shorter than the lines has none
        value.boundsCheck(GENERATION_OFFSET, Long.BYTES);
        if (count > 0)
        {
            value.boundsCheck(LEASE_LINES_OFFSET + (count - 1) * SHARD_STRIDE, Long.BYTES);
        }
    }

    /** @return the entry's balance lines, {@link LeaseWords#lineCount}; 0 for a lease written before there were any. */
    public int count()
    {
        return count;
    }

    /**
     * @param generation the generation the caller resolved the entry at.
     * @return {@link Entry#isCurrentAcquire}: true while the entry is still that one (acquire load).
     */
    public boolean isCurrentAcquire(final long generation)
    {
        return UnsafeApi.getLongAcquire(base, generationAddress) == generation;
    }

    /**
     * The line a thread's probe picks, as the window door picks its shard ({@code door.ShardProbe.shard}): the probe
     * read unsigned, times {@link #count}, over 2^32.
     *
     * @param probe a thread's probe, any int.
     * @return a line in {@code [0, count())} when {@link #count} is above 0, whatever the probe.
     */
    public int lineOf(final int probe)
    {
        return (int)(((probe & 0xFFFFFFFFL) * count) >>> 32);
    }

    /**
     * The address of {@link #lineOf}'s line, for {@link #lineVolatile} and {@link #casLine}. Tested nowhere: the
     * line is below {@link #count} for every probe, and every line was checked against the entry's length when this
     * was made (a test here cost the warm spend five instructions).
     *
     * @param probe a thread's probe, any int.
     * @return the line's address; call it only when {@link #count} is above 0 (with none there is no line).
     */
    public long lineFor(final int probe)
    {
        assert count > 0 : "a lease without balance lines";
        return firstLine + (long)lineOf(probe) * SHARD_STRIDE;
    }

    /**
     * @param line a line's address from {@link #lineFor} of this object.
     * @return {@link LeaseWords#lineVolatile}.
     */
    public long lineVolatile(final long line)
    {
        return UnsafeApi.getLongVolatile(base, line);
    }

    /**
     * {@link LeaseWords#casLine}: see the class comment for the protocol.
     *
     * @param line a line's address from {@link #lineFor} of this object.
     */
    public boolean casLine(final long line, final long expected, final long next)
    {
        return UnsafeApi.compareAndSetLong(base, line, expected, next);
    }
}
