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
 * ({@link #take}).
 *
 * <p>Writes follow {@link Entry}'s protocol exactly as {@link LeaseWords}' do: load the line, pass the generation
 * test, then compare-and-set against the word loaded ({@link #take}).
 *
 * <p>Made on the cold path, one per lease slot; immutable, so thread-safe. Valid while the entry's memory stays
 * mapped, as the buffer it was made from is (the engine's owner keeps the file mapped).
 */
public final class LeaseLines
{
    /** {@link #take}: the cost was taken from the line. Above any short balance, as are the other two. */
    public static final long TAKEN = Long.MAX_VALUE;
    /** {@link #take}: the entry is no longer the one resolved at the generation; nothing taken. */
    public static final long GONE = Long.MAX_VALUE - 1;
    /** {@link #take}: another write to the line landed first; nothing taken. */
    public static final long RACE = Long.MAX_VALUE - 2;

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
     * @param probe a thread's probe, any int.
     * @return the line the probe picks, as the window door picks its shard ({@code door.ShardProbe.shard}): the
     * probe read unsigned, times {@link #count}, over 2^32; in {@code [0, count())} whatever the probe when
     * {@link #count} is above 0.
     */
    public int lineOf(final int probe)
    {
        return (int)(((probe & 0xFFFFFFFFL) * count) >>> 32);
    }

    /**
     * One attempt of the warm spend on the line {@code probe} picks, in {@link Entry}'s protocol: loads the line
     * (volatile), tests the generation (acquire), then compares-and-sets the line less {@code cost} against the
     * word loaded, {@link LeaseWords#lineVolatile}, {@link Entry#isCurrentAcquire} and {@link LeaseWords#casLine}'s
     * words in their order. The line is not tested: {@link #lineOf} is below {@link #count} for every probe, and
     * every line was checked against the entry's length when this was made. Call it only when {@link #count} is
     * above 0.
     *
     * @param probe      a thread's probe, any int.
     * @param generation the generation the caller resolved the entry at.
     * @param cost       tokens, at least 1.
     * @return {@link #TAKEN}; {@link #GONE} (the entry changed: nothing taken); {@link #RACE} (another write landed
     * between the load and the compare-and-set: nothing taken); else the line's balance, below {@code cost}
     * (nothing taken).
     */
    public long take(final int probe, final long generation, final long cost)
    {
        assert count > 0 : "a lease without balance lines";
        // the field read once: after the volatile load, every read of a field is a load again
        final Object base = this.base;
        final long line = firstLine + (((probe & 0xFFFFFFFFL) * count) >>> 32) * SHARD_STRIDE; // lineOf's line
        final long balance = UnsafeApi.getLongVolatile(base, line);
        if (UnsafeApi.getLongAcquire(base, generationAddress) != generation)
        {
            return GONE;
        }
        if (balance < cost)
        {
            return balance;
        }
        return UnsafeApi.compareAndSetLong(base, line, balance, balance - cost) ? TAKEN : RACE;
    }
}
