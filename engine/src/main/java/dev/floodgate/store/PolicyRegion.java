package dev.floodgate.store;

import org.agrona.concurrent.AtomicBuffer;

/**
 * The node's policy in the file's record: per action the limit, window and mode, plus the window door's
 * numbering regimes. Two records alternate; the policy generation word selects the current one
 * ({@code generation & 1}), so a publish writes the record readers are <em>not</em> reading and then flips
 * the generation with one release store. A reader loads the generation (acquire), copies the selected record
 * and loads the generation again: equal means the copy is whole (a second publish during the copy would
 * have had to change the generation first). A publisher that dies mid-write leaves only the unselected
 * record torn, and the generation unchanged. Publishers serialise under the table guard.
 *
 * <pre>
 *  Per action, at record + ordinal x 128:
 *   0  limit (64)               current regime: tokens per window
 *   8  window ms (64)
 *  16  mode (64): 0 enforce, 1 shadow
 *  24  version (64): the generation that last changed limit or window (bucket units follow it)
 *  32  epoch ms (64)            window numbering: number(t) = base + floor((t - epoch) / window), t >= epoch
 *  40  base (64)                first window number of the current regime
 *  48  previous limit (64)      the regime in force before epoch ms
 *  56  previous window ms (64)
 *  64  previous epoch ms (64)
 *  72  previous base (64)
 *  80  entered (64)             record 0 only: the highest window number a window check announced before it
 *                               counted in it, plus 2^63 (numbers may be negative; 0 is none)
 *  88  publishing (64)          record 0 only: the owner word of a publisher changing this action's limit or
 *                               window, from before it reads the entered word until after its flip; 0 otherwise
 *  96..127 reserved
 * </pre>
 *
 * The entered word is the one word checks write here: before a process first counts in a window of its current
 * regime, a window check raises it to that window's number ({@link #announceVolatile}, lock-free), then reads the
 * action's publishing word; a publisher changing the action's regime stores its owner word there, then reads the
 * entered word. Either the publisher sees the number, and starts its new regime after that window
 * ({@code door.PolicyPlanner}), or the check sees the publisher and waits for it ({@link #awaitPublished}), whose
 * flip then fails the check's claim (see {@code door.RegimeEntry}). A stopped publisher so holds up the first
 * checks of a new window of the actions it changes, and nothing else. It lives in record 0 whatever the
 * generation, since it outlives publishes; window numbers only grow from regime to regime, so a word at or above a
 * regime's base says that regime was entered, and how far. An engine before window announcements wrote the regime's
 * base under the guard (at or below its numbers, so still read as entered); zero in a file whose checks never wrote
 * it, which reads as "none entered".
 */
public final class PolicyRegion
{
    public static final int LIMIT = 0;
    public static final int WINDOW_MS = 8;
    public static final int MODE = 16;
    public static final int VERSION = 24;
    public static final int EPOCH_MS = 32;
    public static final int BASE = 40;
    public static final int PREV_LIMIT = 48;
    public static final int PREV_WINDOW_MS = 56;
    public static final int PREV_EPOCH_MS = 64;
    public static final int PREV_BASE = 72;
    public static final int ENTERED = 80;
    public static final int PUBLISHING = 88;
    private static final int WORDS = 10;

    /**
     * One action's block, as stored.
     *
     * @param limit        tokens per window; 0 switches the action off.
     * @param windowMs     the window.
     * @param shadow       true: refusals are counted but admitted.
     * @param version      generation that last changed limit or window.
     * @param epochMs      monotonic ms from which the current window regime numbers windows.
     * @param base         the window number at {@code epochMs}.
     * @param prevLimit    limit before {@code epochMs}.
     * @param prevWindowMs window before {@code epochMs}.
     * @param prevEpochMs  epoch of the previous regime.
     * @param prevBase     base of the previous regime.
     */
    public record Block(long limit, long windowMs, boolean shadow, long version, long epochMs, long base,
        long prevLimit, long prevWindowMs, long prevEpochMs, long prevBase)
    {
    }

    private final AtomicBuffer buffer;
    private final int actions;

    /** @param header the file's record. @param actions the number of actions. */
    public PolicyRegion(final FileHeader header, final int actions)
    {
        this.buffer = header.buffer();
        this.actions = actions;
    }

    /** @return the policy generation, acquire load: the one load every check pays. */
    public long generationAcquire()
    {
        return buffer.getLongAcquire(FileHeader.POLICY_GENERATION_OFFSET);
    }

    /**
     * Copies the current policy, consistently.
     *
     * @param into receives one block per action ordinal.
     * @return the generation the copy belongs to; 0 when no policy was ever published (blocks untouched).
     */
    public long read(final Block[] into)
    {
        while (true)
        {
            final long generation = generationAcquire();
            if (generation == 0)
            {
                return 0;
            }
            final int record = recordOffset(generation);
            final long[] w = new long[WORDS];
            for (int a = 0; a < actions; a++)
            {
                final int base = record + a * FileHeader.POLICY_ACTION_STRIDE;
                for (int i = 0; i < WORDS; i++)
                {
                    w[i] = buffer.getLongVolatile(base + 8 * i);
                }
                into[a] = new Block(w[0], w[1], w[2] == 1, w[3], w[4], w[5], w[6], w[7], w[8], w[9]);
            }
            if (generationAcquire() == generation)
            {
                return generation;
            }
            Thread.onSpinWait(); // a publish overtook the copy: take the new one
        }
    }

    /**
     * Writes {@code blocks} as generation {@code generation} and flips to it. Call under the table guard with
     * {@code generation} one more than the current one.
     *
     * @param blocks     one per action ordinal.
     * @param generation the new generation, at least 1.
     */
    public void publishRelease(final Block[] blocks, final long generation)
    {
        final int record = recordOffset(generation);
        for (int a = 0; a < actions; a++)
        {
            final Block b = blocks[a];
            final int base = record + a * FileHeader.POLICY_ACTION_STRIDE;
            buffer.putLong(base + LIMIT, b.limit());
            buffer.putLong(base + WINDOW_MS, b.windowMs());
            buffer.putLong(base + MODE, b.shadow() ? 1 : 0);
            buffer.putLong(base + VERSION, b.version());
            buffer.putLong(base + EPOCH_MS, b.epochMs());
            buffer.putLong(base + BASE, b.base());
            buffer.putLong(base + PREV_LIMIT, b.prevLimit());
            buffer.putLong(base + PREV_WINDOW_MS, b.prevWindowMs());
            buffer.putLong(base + PREV_EPOCH_MS, b.prevEpochMs());
            buffer.putLong(base + PREV_BASE, b.prevBase());
        }
        buffer.putLongRelease(FileHeader.POLICY_GENERATION_OFFSET, generation);
    }

    /**
     * Raises the entered word to {@code number} (never lowers it), by compare-and-set: a window check about to
     * count in that window for the first time in its process. The caller reads the action's publishing mark next
     * ({@link #publishingVolatile}), which orders the two against a publisher's mark and read of the word.
     *
     * @param action an action ordinal.
     * @param number a window number of the current regime.
     */
    public void announceVolatile(final int action, final long number)
    {
        final int offset = enteredOffset(action);
        while (true)
        {
            final long word = buffer.getLongVolatile(offset);
            if (word != 0 && word - Long.MIN_VALUE >= number ||
                buffer.compareAndSetLong(offset, word, number + Long.MIN_VALUE))
            {
                return;
            }
        }
    }

    /**
     * Marks {@code action} as being published by {@code owner} (a volatile store, ordered before the publisher's read
     * of the entered word). Call under the policy guard, before reading {@link #enteredVolatile}.
     */
    public void markPublishingVolatile(final int action, final long owner)
    {
        buffer.putLongVolatile(publishingOffset(action), owner);
    }

    /** Clears {@link #markPublishingVolatile}'s mark, after the flip. Call under the policy guard. */
    public void clearPublishing(final int action)
    {
        buffer.putLongRelease(publishingOffset(action), 0);
    }

    /** @return the owner word of a publisher changing {@code action}'s regime, 0 when none (volatile). */
    public long publishingVolatile(final int action)
    {
        return buffer.getLongVolatile(publishingOffset(action));
    }

    /**
     * Waits until {@code publisher} no longer publishes {@code action}: its mark cleared or replaced, or the kernel
     * says it died (a dead publisher's mark stays until the action's next publish).
     *
     * @return false when a live publisher kept it for {@code timeoutNanos}.
     */
    public boolean awaitPublished(final int action, final long publisher, final SlotLocks locks,
        final long timeoutNanos)
    {
        return GuardWait.awaitReleased(buffer, publishingOffset(action), publisher, locks, timeoutNanos);
    }

    private static int publishingOffset(final int action)
    {
        return FileHeader.POLICY_RECORDS_OFFSET + action * FileHeader.POLICY_ACTION_STRIDE + PUBLISHING;
    }

    /**
     * @param action an action ordinal.
     * @return the highest window number a check announced, {@link Long#MIN_VALUE} when none; call under the policy
     * guard for a value that a check raising it later learns of (it then waits for the caller's publish).
     */
    public long enteredVolatile(final int action)
    {
        return buffer.getLongVolatile(enteredOffset(action)) - Long.MIN_VALUE; // stored offset: a zero word is none
    }

    private static int enteredOffset(final int action)
    {
        return FileHeader.POLICY_RECORDS_OFFSET + action * FileHeader.POLICY_ACTION_STRIDE + ENTERED;
    }

    private static int recordOffset(final long generation)
    {
        return FileHeader.POLICY_RECORDS_OFFSET + (int)(generation & 1) * FileHeader.POLICY_RECORD_LENGTH;
    }
}
