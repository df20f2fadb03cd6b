package dev.floodgate.store;

import org.agrona.concurrent.AtomicBuffer;

import java.time.Instant;

/**
 * The attached processes, in the process slots of the {@link FileHeader}. A process owns slot k while it holds
 * the kernel lock on byte k of the table's lock file ({@link SlotLocks}); the owner word (slot index and a random
 * token, never reused) names that ownership here and in the lock file, and every guard a process takes records
 * it, so "is this owner alive?" is answered by the kernel, never by a pid (pids are reused, and are meaningless
 * across the pid namespaces of one pod's containers).
 *
 * <p>Per slot: owner word, then for people and the janitor: pid (as this process sees it, display only), start
 * time, heartbeat, attach time, and the last time the process resumed after a stall (see {@link #heartbeat}).
 *
 * <p>Lock-free. A reader may see a slot half-registered (owner word set, the rest still zero); it treats the
 * process as alive and its heartbeat as fresh, which can only delay reclamation.
 */
public final class ProcessRegistry
{
    private static final long PID = ProcessHandle.current().pid();
    private static final long START_MS = ProcessHandle.current().info().startInstant()
        .map(Instant::toEpochMilli).orElse(0L);

    private final AtomicBuffer buffer;
    private final SlotLocks locks;
    private final long stallNanos;
    private long lastBeatRealNanos = System.nanoTime(); // guarded by this
    private boolean left; // guarded by this

    /**
     * @param header     the file's record.
     * @param locks      the table's lock file.
     * @param stallNanos a heartbeat gap at least this long marks the process as resumed from a stall.
     */
    public ProcessRegistry(final FileHeader header, final SlotLocks locks, final long stallNanos)
    {
        this.buffer = header.buffer();
        this.locks = locks;
        this.stallNanos = stallNanos;
    }

    /**
     * Records a slot this process claimed in the lock file ({@link SlotLocks#claimSlot}): publishes the owner word
     * here. The slot's counter block keeps its predecessors' totals, which this process counts on from
     * ({@link CounterRegion}).
     *
     * @param owner    the owner word from {@link SlotLocks#claimSlot}.
     * @param nowNanos monotonic time.
     * @return the slot index.
     */
    public int register(final long owner, final long nowNanos)
    {
        final int slot = SlotLocks.slotOf(owner);
        final int base = FileHeader.processOffset(slot);
        buffer.putLong(base + FileHeader.PROCESS_PID, PID);
        buffer.putLong(base + FileHeader.PROCESS_START_MS, START_MS);
        buffer.putLong(base + FileHeader.PROCESS_ATTACHED_NANOS, nowNanos);
        buffer.putLong(base + FileHeader.PROCESS_RESUMED_NANOS, nowNanos - Long.MAX_VALUE / 4); // never stalled
        buffer.putLong(base + FileHeader.PROCESS_HEARTBEAT_NANOS, nowNanos);
        buffer.putLongVolatile(base + FileHeader.PROCESS_OWNER, owner);
        return slot;
    }

    /** @param slot a slot. @return its owner word, volatile read; 0 when free. */
    public long ownerVolatile(final int slot)
    {
        return buffer.getLongVolatile(FileHeader.processOffset(slot) + FileHeader.PROCESS_OWNER);
    }

    /**
     * Beats this process's heartbeat. A gap of at least the stall threshold since the last beat means the whole
     * process (or at least its clock thread) was stopped: SIGSTOP, a debugger, a long GC pause. A thread of it
     * may still be between an entry's generation test and its write, so the resume time is recorded before the
     * heartbeat, and the janitor frees nothing until the process has run a grace period since ({@link
     * #reclaimBlocker}).
     *
     * <p>The time is read here, after the gap is measured: a caller's own reading may predate the freeze, and a
     * janitor pass frozen between its clock read and this call stamped that older time, a resume already a grace
     * period old, and took the gap with it, so the clock thread's next beat stamped nothing (found by review).
     *
     * @param slot  this instance's slot.
     * @param clock monotonic time, read once the gap is measured.
     */
    public synchronized void heartbeat(final int slot, final java.util.function.LongSupplier clock)
    {
        if (left)
        {
            // a janitor pass, or an operator's cleanup(), still in flight when close returned: the slot may be
            // another process's by now, whose heartbeat this would forge (found by review)
            return;
        }
        final int base = FileHeader.processOffset(slot);
        // the gap is measured on the real clock: an injected ticker may jump, which is no stall
        final long real = System.nanoTime();
        final long nowNanos = clock.getAsLong();
        if (real - lastBeatRealNanos >= stallNanos)
        {
            buffer.putLongRelease(base + FileHeader.PROCESS_RESUMED_NANOS, nowNanos);
        }
        lastBeatRealNanos = real;
        buffer.putLongRelease(base + FileHeader.PROCESS_HEARTBEAT_NANOS, nowNanos);
    }

    /**
     * Leaves the registry on close: owner cleared (the counter block stays, for the slot's next owner to count on
     * from). The slot's kernel lock is dropped when the table is closed.
     *
     * @param owner this instance's owner word.
     */
    public synchronized void unregister(final long owner)
    {
        left = true; // under the heartbeat's monitor: no beat of this instance lands after this returns
        // only its own word: a process that paired another lock file may have registered over it (LockFilePairing)
        buffer.compareAndSetLong(FileHeader.processOffset(SlotLocks.slotOf(owner)) + FileHeader.PROCESS_OWNER, owner, 0);
    }

    /**
     * Frees dead processes' slots (their counter blocks stay); a dead process's cached addresses died with it.
     *
     * <p>Takes no lock: an entry is cleared by compare-and-set against the word read before its slot was found
     * unlocked, so a process that claims and registers the slot meanwhile keeps its own word. It took the dead
     * process's slot lock for the moment it cleared the entry, and a janitor stopped in that moment made the dead
     * process's owner word read as alive (the slot held, still naming it): a guard it died holding was never taken
     * over while the janitor stayed stopped (found by review).
     *
     * @return slots freed.
     */
    public int freeDead()
    {
        int freed = 0;
        for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
        {
            final int base = FileHeader.processOffset(slot);
            final long owner = buffer.getLongVolatile(base + FileHeader.PROCESS_OWNER);
            if (owner != 0 && !locks.isHeld(slot) &&
                buffer.compareAndSetLong(base + FileHeader.PROCESS_OWNER, owner, 0))
            {
                freed++;
            }
        }
        return freed;
    }

    /**
     * @param nowNanos   monotonic time.
     * @param graceNanos the reclamation grace period.
     * @return the pid of a live process that may still write an address it resolved before an entry was
     * tombstoned (its heartbeat is older than the grace period, or it resumed from a stall less than a grace
     * period ago), or 0 when none may.
     */
    public long reclaimBlocker(final long nowNanos, final long graceNanos)
    {
        for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
        {
            final int base = FileHeader.processOffset(slot);
            final long owner = buffer.getLongVolatile(base + FileHeader.PROCESS_OWNER);
            if (owner == 0)
            {
                continue;
            }
            final long heartbeat = buffer.getLongAcquire(base + FileHeader.PROCESS_HEARTBEAT_NANOS);
            final long resumed = buffer.getLongVolatile(base + FileHeader.PROCESS_RESUMED_NANOS);
            if ((nowNanos - heartbeat > graceNanos || nowNanos - resumed < graceNanos) && locks.isAlive(owner))
            {
                return Math.max(1, buffer.getLongVolatile(base + FileHeader.PROCESS_PID));
            }
        }
        return 0;
    }

    /** @return the number of live attached processes. */
    public int attached()
    {
        return attached(buffer, locks);
    }

    /**
     * @param header a file's record.
     * @param locks  its lock file (read-only is enough), or null when it has none.
     * @return the number of live attached processes; with no lock file, the registered slots.
     */
    public static int attached(final FileHeader header, final SlotLocks locks)
    {
        return attached(header.buffer(), locks);
    }

    private static int attached(final AtomicBuffer buffer, final SlotLocks locks)
    {
        int n = 0;
        for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
        {
            if (buffer.getLongVolatile(FileHeader.processOffset(slot) + FileHeader.PROCESS_OWNER) != 0 &&
                (locks == null || locks.isHeld(slot)))
            {
                n++;
            }
        }
        return n;
    }
}
