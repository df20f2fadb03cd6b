package dev.floodgate.store;

import net.openhft.chronicle.algo.bytes.NativeAccess;
import net.openhft.chronicle.algo.locks.VanillaReadWriteUpdateWithWaitsLockingStrategy;
import net.openhft.chronicle.hash.impl.BigSegmentHeader;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An inter-process mutex that names its owner, taken around every Chronicle Map operation that locks a
 * segment, so that a process killed inside one can be told from a slow one and repaired online.
 *
 * <p>Chronicle Map's segment locks are counts in the mapped file with no owner: a process killed while holding
 * or awaiting one leaves the segment blocked for everyone, and its only repair needs every process to close the
 * map. Under this guard at most one process at a time is inside Chronicle Map's locking, and every other one
 * waits here, on a word that holds the owner's pid, without touching Chronicle's lock words. So when the owner
 * is dead, every Chronicle lock word can only hold what the dead process left: the next process to want the
 * guard takes it over, resets every segment lock and the global (tier allocation) lock, counts the repair and
 * carries on: the NGINX model for shared-memory zones. Checks on warm keys never take the guard.
 *
 * <p>The record sits in space Chronicle Map 2026.1 reserves for its global mutable state but does not use: the
 * last cache line before the page-aligned segment headers, which every process can find right after mapping,
 * without any lock. {@link #locate} checks that the line is clear of the used part.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Owner pid (64): 0 when free                   |  0
 *  |                 Repairs (64): dead owners taken over          |  8
 *  |                 Last dead owner's pid (64)                    | 16
 *  |                 Timeouts (64): acquisitions given up          | 24
 *  |                 Tier counts repaired (64)                     | 32
 *  |                 Tier counts diverged beyond repair (64)       | 40
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * Guarantees: mutual exclusion among live processes and among the threads of one instance; a dead owner is
 * detected within about a millisecond of the first wait. Not guaranteed: progress while a live owner is
 * stopped (SIGSTOP); callers give up after their timeout and degrade instead of stalling.
 */
public final class TableGuard
{
    public static final int OWNER_OFFSET = 0;
    public static final int REPAIRS_OFFSET = 8;
    public static final int LAST_DEAD_OFFSET = 16;
    public static final int TIMEOUTS_OFFSET = 24;
    public static final int TIER_REPAIRS_OFFSET = 32;
    public static final int TIER_DIVERGENCES_OFFSET = 40;
    public static final int LENGTH = 64;

    private static final long PID = ProcessHandle.current().pid();
    private static final long LIVENESS_CHECK_NANOS = 1_000_000L;

    private final UnsafeBuffer record;
    private final VanillaChronicleHash<?, ?, ?, ?> map;
    private final ReentrantLock local = new ReentrantLock();

    private TableGuard(final UnsafeBuffer record, final VanillaChronicleHash<?, ?, ?, ?> map)
    {
        this.record = record;
        this.map = map;
    }

    /**
     * @param map a mapped table.
     * @return its guard.
     * @throws IllegalStateException if the reserved space is not where this version expects it.
     */
    static TableGuard locate(final VanillaChronicleHash<?, ?, ?, ?> map)
    {
        final long segmentHeaders = map.globalMutableState().getSegmentHeadersOffset();
        final long offset = segmentHeaders - LENGTH;
        if (offset < map.mapHeaderInnerSize() || offset % LENGTH != 0)
        {
            throw new IllegalStateException("no free line before the segment headers (header ends at " +
                map.mapHeaderInnerSize() + ", segment headers at " + segmentHeaders + ")");
        }
        return new TableGuard(new UnsafeBuffer(map.bsAddress() + offset, LENGTH), map);
    }

    /**
     * Takes the guard, taking it over from a dead owner (and repairing Chronicle's locks) if need be.
     *
     * @param timeoutNanos how long to wait for a live owner.
     * @return true when held; false when a live owner kept it for the whole timeout.
     */
    public boolean acquire(final long timeoutNanos)
    {
        if (local.isHeldByCurrentThread())
        {
            throw new IllegalStateException("nested table operation: the guard is not reentrant across processes");
        }
        final long deadline = System.nanoTime() + timeoutNanos;
        try
        {
            if (!local.tryLock(timeoutNanos, TimeUnit.NANOSECONDS))
            {
                record.getAndAddLong(TIMEOUTS_OFFSET, 1);
                return false;
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return false;
        }
        long nextLivenessCheck = System.nanoTime() + LIVENESS_CHECK_NANOS / 10;
        int spins = 0;
        while (true)
        {
            final long owner = record.getLongVolatile(OWNER_OFFSET);
            if (owner == 0 && record.compareAndSetLong(OWNER_OFFSET, 0, PID))
            {
                return true;
            }
            final long now = System.nanoTime();
            if (owner != 0 && owner != PID && now - nextLivenessCheck >= 0)
            {
                nextLivenessCheck = now + LIVENESS_CHECK_NANOS;
                if (!isAlive(owner) && record.compareAndSetLong(OWNER_OFFSET, owner, PID))
                {
                    repair(owner);
                    return true;
                }
            }
            if (now - deadline >= 0)
            {
                record.getAndAddLong(TIMEOUTS_OFFSET, 1);
                local.unlock();
                return false;
            }
            if (++spins < 100)
            {
                Thread.onSpinWait();
            }
            else
            {
                LockSupport.parkNanos(20_000L);
            }
        }
    }

    /** Releases the guard taken by {@link #acquire}. */
    public void release()
    {
        record.putLongRelease(OWNER_OFFSET, 0);
        local.unlock();
    }

    /** @return the owner's pid, or 0 when free. */
    public long ownerVolatile()
    {
        return record.getLongVolatile(OWNER_OFFSET);
    }

    /** @return dead owners taken over since the file was created. */
    public long repairs()
    {
        return record.getLongVolatile(REPAIRS_OFFSET);
    }

    /** @return acquisitions given up because a live owner held the guard too long. */
    public long timeouts()
    {
        return record.getLongVolatile(TIMEOUTS_OFFSET);
    }

    /** Counts a segment entry counter repaired after a process died inside an insert. */
    void countTierRepair()
    {
        record.getAndAddLong(TIER_REPAIRS_OFFSET, 1);
    }

    /** Counts a chained tier whose entry counter diverged and could not be repaired online. */
    void countTierDivergence()
    {
        record.getAndAddLong(TIER_DIVERGENCES_OFFSET, 1);
    }

    /** @return chained-tier counters found diverged and left for offline recovery. */
    public long tierDivergences()
    {
        return record.getLongVolatile(TIER_DIVERGENCES_OFFSET);
    }

    /** @return segment entry counters repaired since the file was created. */
    public long tierRepairs()
    {
        return record.getLongVolatile(TIER_REPAIRS_OFFSET);
    }

    /** @return the pid of the last dead owner taken over, 0 if none. */
    public long lastDeadOwner()
    {
        return record.getLongVolatile(LAST_DEAD_OFFSET);
    }

    private void repair(final long deadOwner)
    {
        // Only the guard's owner ever takes Chronicle locks, and the owner is dead: whatever the lock words
        // hold is what it left. Reset them all, including the tier-allocation lock (Chronicle issue #505).
        final BigSegmentHeader segmentHeader = BigSegmentHeader.INSTANCE;
        for (int segment = 0; segment < map.segments(); segment++)
        {
            segmentHeader.resetLock(map.segmentHeaderAddress(segment));
        }
        VanillaReadWriteUpdateWithWaitsLockingStrategy.instance()
            .reset(NativeAccess.instance(), null, map.bsAddress() + map.headerSize);
        record.putLong(LAST_DEAD_OFFSET, deadOwner);
        record.getAndAddLong(REPAIRS_OFFSET, 1);
        System.getLogger("dev.floodgate").log(System.Logger.Level.WARNING,
            "process {0} died inside a table operation; its locks were reset by {1}", deadOwner, PID);
    }

    static boolean isAlive(final long pid)
    {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
