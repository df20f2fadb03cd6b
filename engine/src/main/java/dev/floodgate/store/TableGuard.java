package dev.floodgate.store;

import static dev.floodgate.store.GuardRegion.ALLOCATION_OFFSET;
import static dev.floodgate.store.GuardRegion.LAST_DEAD_OFFSET;
import static dev.floodgate.store.GuardRegion.POLICY_OFFSET;
import static dev.floodgate.store.GuardRegion.REPAIRS_OFFSET;
import static dev.floodgate.store.GuardRegion.SEGMENT_GUARD_OFFSET;
import static dev.floodgate.store.GuardRegion.TIMEOUTS_OFFSET;

import net.openhft.chronicle.algo.bytes.NativeAccess;
import net.openhft.chronicle.algo.locks.VanillaReadWriteUpdateWithWaitsLockingStrategy;
import net.openhft.chronicle.hash.impl.BigSegmentHeader;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Inter-process mutexes that name their owner, taken around every Chronicle Map operation that locks, so that a
 * process killed inside one can be told from a slow one and repaired online, and so that a stopped process
 * holds up only what it holds.
 *
 * <p>Chronicle Map's lock words are counts in the mapped file with no owner: a process killed while holding one
 * leaves it held for everyone, and Chronicle's only repair needs every process to close the map. So Floodgate
 * puts an owner-naming guard in front of each of them, and only a guard's holder ever touches the Chronicle
 * lock behind it:
 * <ul>
 * <li>one <b>segment guard</b> per segment, in front of that segment's lock (lookups, inserts, removals,
 * scans of that segment);</li>
 * <li>the <b>allocation guard</b>, in front of Chronicle's global lock, which an insert takes when it must
 * allocate a segment tier; it is taken inside a segment guard, never the other way round;</li>
 * <li>the <b>policy guard</b>, which serialises policy publishers (nothing of Chronicle's behind it).</li>
 * </ul>
 * A guard word holds its owner's owner word ({@link SlotLocks}: slot and token), 0 when free. A waiter asks the
 * kernel whether the owner is alive; when it is dead, the waiter takes the guard over by compare-and-set
 * ({@link GuardWait}) and resets the Chronicle lock behind it, which can only hold what the dead owner left: the
 * NGINX model for shared-memory zones. Checks on warm keys take no guard. The guard words, and this class's
 * counters of takeovers and timeouts, live in Chronicle's unused space ({@link GuardRegion}).
 *
 * <p>Guarantees: mutual exclusion per guard among live processes and among the threads of one process; a dead
 * owner is detected within about a millisecond of the first wait. Not guaranteed: progress on a guard whose
 * live owner is stopped (SIGSTOP, a debugger); its waiters give up after their timeout, and everything the
 * stopped owner does not hold stays available.
 */
public final class TableGuard
{
    private final GuardRegion region;
    private final UnsafeBuffer line;
    private final VanillaChronicleHash<?, ?, ?, ?> map;
    private final UnsafeBuffer[] segments;
    private final SlotLocks locks;
    private final long owner;

    private TableGuard(final GuardRegion region, final VanillaChronicleHash<?, ?, ?, ?> map, final SlotLocks locks,
        final long owner)
    {
        this.region = region;
        this.line = region.line();
        this.map = map;
        this.locks = locks;
        this.owner = owner;
        this.segments = region.segmentHeaders();
    }

    /**
     * @param map   a mapped table.
     * @param locks the table's lock file.
     * @param owner this process's owner word, from {@link SlotLocks#claimSlot}.
     * @return its guards.
     * @throws IllegalStateException if the reserved space is not where this version of Chronicle Map leaves it.
     */
    static TableGuard locate(final VanillaChronicleHash<?, ?, ?, ?> map, final SlotLocks locks, final long owner)
    {
        return new TableGuard(GuardRegion.locate(map), map, locks, owner);
    }

    /** @return the words the guards live among, with the records others keep beside them. */
    GuardRegion region()
    {
        return region;
    }

    /** @return the number of segments, each with its guard. */
    public int segments()
    {
        return segments.length;
    }

    /**
     * Takes segment {@code segment}'s guard, taking it over from a dead owner (and resetting the segment's
     * Chronicle lock) if need be. Not reentrant.
     *
     * @param segment      a segment index.
     * @param timeoutNanos how long to wait for a live owner.
     * @return true when held; false when a live owner kept it for the whole timeout.
     */
    public boolean acquireSegment(final int segment, final long timeoutNanos)
    {
        final UnsafeBuffer header = segments[segment];
        return acquire(header, SEGMENT_GUARD_OFFSET, timeoutNanos) ||
            acquireSlow(header, SEGMENT_GUARD_OFFSET, timeoutNanos, segment, true);
    }

    /**
     * {@link #acquireSegment}, but a wait given up is not counted among this guard's {@link #timeouts}: for a caller
     * that gives up on purpose and counts its own give-ups where they mean something ({@link EntryTotalRepair}).
     * Operators read the timeouts as operations that could not reach a segment; a repair that gives up its hold
     * reached nothing anyone waited for. A takeover from a dead owner is counted as ever.
     *
     * @param segment      a segment index.
     * @param timeoutNanos how long to wait for a live owner.
     * @return true when held; false when a live owner kept it for the whole timeout.
     */
    boolean acquireSegmentUncounted(final int segment, final long timeoutNanos)
    {
        final UnsafeBuffer header = segments[segment];
        return acquire(header, SEGMENT_GUARD_OFFSET, timeoutNanos) ||
            acquireSlow(header, SEGMENT_GUARD_OFFSET, timeoutNanos, segment, false);
    }

    /** @param segment a segment whose guard this thread holds. */
    public void releaseSegment(final int segment)
    {
        segments[segment].putLongRelease(SEGMENT_GUARD_OFFSET, 0);
    }

    /**
     * Takes the allocation guard (inside a segment guard), repairing Chronicle's global lock after a dead owner.
     *
     * @param timeoutNanos how long to wait for a live owner.
     * @return true when held.
     */
    public boolean acquireAllocation(final long timeoutNanos)
    {
        return acquire(line, ALLOCATION_OFFSET, timeoutNanos) ||
            acquireSlow(line, ALLOCATION_OFFSET, timeoutNanos, -1, true);
    }

    /** Releases the allocation guard. */
    public void releaseAllocation()
    {
        line.putLongRelease(ALLOCATION_OFFSET, 0);
    }

    /**
     * Takes the policy guard: publishers of the node's policy serialise under it.
     *
     * @param timeoutNanos how long to wait for a live owner.
     * @return true when held.
     */
    public boolean acquirePolicy(final long timeoutNanos)
    {
        return acquire(line, POLICY_OFFSET, timeoutNanos) ||
            acquireSlow(line, POLICY_OFFSET, timeoutNanos, -2, true);
    }

    /** Counts a wait given up on a word this guard line does not hold (a check waiting for a publish). */
    public void countTimeout()
    {
        line.getAndAddLong(TIMEOUTS_OFFSET, 1);
    }

    /** Releases the policy guard. */
    public void releasePolicy()
    {
        line.putLongRelease(POLICY_OFFSET, 0);
    }

    private boolean acquire(final UnsafeBuffer buffer, final int offset, final long timeoutNanos)
    {
        return buffer.compareAndSetLong(offset, 0, owner);
    }

    /**
     * @param what        the segment index behind the guard, -1 for the allocation guard, -2 for the policy guard.
     * @param countGiveUp whether a wait given up counts among the {@link #timeouts}.
     */
    private boolean acquireSlow(final UnsafeBuffer buffer, final int offset, final long timeoutNanos, final int what,
        final boolean countGiveUp)
    {
        final long taken = GuardWait.acquire(buffer, offset, owner, locks, timeoutNanos);
        if (taken == GuardWait.TIMED_OUT)
        {
            if (countGiveUp)
            {
                line.getAndAddLong(TIMEOUTS_OFFSET, 1);
            }
            return false;
        }
        if (taken != GuardWait.TAKEN_FREE)
        {
            repair(what, taken);
        }
        return true;
    }

    private void repair(final int what, final long deadOwner)
    {
        // Only a guard's holder touches the Chronicle lock behind it, and that holder is dead: whatever the lock
        // word holds is what it left.
        if (what >= 0)
        {
            BigSegmentHeader.INSTANCE.resetLock(map.segmentHeaderAddress(what));
        }
        else if (what == -1)
        {
            // the tier-allocation lock (Chronicle issue #505)
            VanillaReadWriteUpdateWithWaitsLockingStrategy.instance()
                .reset(NativeAccess.instance(), null, map.bsAddress() + map.headerSize);
        }
        line.putLong(LAST_DEAD_OFFSET, deadOwner);
        line.getAndAddLong(REPAIRS_OFFSET, 1);
        try
        {
            System.getLogger("dev.floodgate").log(System.Logger.Level.WARNING,
                "a process (slot {0}) died holding the {1} guard; taken over{2}", SlotLocks.slotOf(deadOwner),
                what >= 0 ? "segment " + what : what == -1 ? "allocation" : "policy",
                what == -2 ? "" : " and its Chronicle lock reset");
        }
        catch (final RuntimeException | Error logFailed)
        {
            // The guard is ours and repaired; a throw from here would reach a caller that does not know it holds it,
            // and the guard would stay held by a live process for good (found by review: a failing log handler).
        }
    }

    /** @return dead owners taken over since the file was created. */
    public long repairs()
    {
        return line.getLongVolatile(REPAIRS_OFFSET);
    }

    /** @return acquisitions given up because a live owner held a guard too long. */
    public long timeouts()
    {
        return line.getLongVolatile(TIMEOUTS_OFFSET);
    }
}
