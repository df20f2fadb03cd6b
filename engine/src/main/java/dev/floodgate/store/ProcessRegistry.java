package dev.floodgate.store;

import org.agrona.concurrent.AtomicBuffer;

import java.time.Instant;
import java.util.Optional;

/**
 * The attached processes, in the process slots of the {@link FileHeader}: each open {@code Floodgate}
 * claims a slot with a compare-and-set of its pid, records its start time (so a recycled pid is not mistaken
 * for it) and beats a heartbeat into it. The janitor reads the registry to know whether any attached process
 * may be frozen while holding an address it resolved earlier.
 *
 * <p>Lock-free. A reader may see a slot half-registered (pid set, start time still 0); it treats such a
 * process as alive and its heartbeat as fresh, which can only delay reclamation.
 */
public final class ProcessRegistry
{
    private static final long PID = ProcessHandle.current().pid();
    private static final long START_MS = ProcessHandle.current().info().startInstant()
        .map(Instant::toEpochMilli).orElse(0L);

    /** A dead process's slot while its counters are being folded; never a pid. */
    static final long FOLDING = -1;

    private final AtomicBuffer buffer;
    private final CounterRegion counters;

    /** @param header the file's record. */
    public ProcessRegistry(final FileHeader header)
    {
        this.buffer = header.buffer();
        this.counters = new CounterRegion(header);
    }

    /**
     * Claims a free slot, first freeing the slots of processes that have died.
     *
     * @param nonce    distinguishes several instances in one process.
     * @param nowNanos monotonic time.
     * @return the slot index.
     * @throws IllegalStateException when every slot belongs to a live process.
     */
    public int register(final long nonce, final long nowNanos)
    {
        for (int pass = 0; pass < 2; pass++)
        {
            for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
            {
                final int base = FileHeader.processOffset(slot);
                if (buffer.compareAndSetLong(base + FileHeader.PROCESS_PID, 0, PID))
                {
                    buffer.putLong(base + FileHeader.PROCESS_START_MS, START_MS);
                    buffer.putLong(base + FileHeader.PROCESS_NONCE, nonce);
                    buffer.putLong(base + FileHeader.PROCESS_ATTACHED_NANOS, nowNanos);
                    buffer.putLongRelease(base + FileHeader.PROCESS_HEARTBEAT_NANOS, nowNanos);
                    return slot;
                }
            }
            freeDead();
        }
        throw new IllegalStateException("all " + FileHeader.MAX_PROCESSES + " process slots of the file are " +
            "held by live processes");
    }

    /** @param slot this instance's slot. @param nowNanos monotonic time. */
    public void heartbeat(final int slot, final long nowNanos)
    {
        buffer.putLongRelease(FileHeader.processOffset(slot) + FileHeader.PROCESS_HEARTBEAT_NANOS, nowNanos);
    }

    /** @param slot this instance's slot, released on close. */
    public void unregister(final int slot)
    {
        counters.retire(slot, dev.floodgate.Action.values().length);
        final int base = FileHeader.processOffset(slot);
        buffer.putLong(base + FileHeader.PROCESS_START_MS, 0);
        buffer.putLong(base + FileHeader.PROCESS_NONCE, 0);
        buffer.putLongRelease(base + FileHeader.PROCESS_PID, 0);
    }

    /**
     * Frees dead processes' slots; a dead process's cached addresses died with it.
     *
     * @return slots freed.
     */
    public int freeDead()
    {
        int freed = 0;
        for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
        {
            final int base = FileHeader.processOffset(slot);
            final long pid = buffer.getLongVolatile(base + FileHeader.PROCESS_PID);
            if (pid > 0 && !isAlive(pid, buffer.getLongVolatile(base + FileHeader.PROCESS_START_MS)) &&
                buffer.compareAndSetLong(base + FileHeader.PROCESS_PID, pid, FOLDING))
            {
                // The slot is ours while it reads FOLDING: no process can register into it, so its counters
                // are folded into the retired block before anyone else may write them.
                counters.retire(slot, dev.floodgate.Action.values().length);
                buffer.putLongRelease(base + FileHeader.PROCESS_PID, 0);
                freed++;
            }
        }
        return freed;
    }

    /**
     * @param ownSlot  the caller's slot, skipped (it is evidently running).
     * @param nowNanos monotonic time.
     * @param graceNanos how old a heartbeat may be.
     * @return the pid of a live process whose heartbeat is older than the grace period, or 0 when none is.
     */
    public long frozenProcess(final int ownSlot, final long nowNanos, final long graceNanos)
    {
        for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
        {
            final int base = FileHeader.processOffset(slot);
            final long pid = buffer.getLongVolatile(base + FileHeader.PROCESS_PID);
            if (slot == ownSlot || pid <= 0)
            {
                continue;
            }
            final long heartbeat = buffer.getLongVolatile(base + FileHeader.PROCESS_HEARTBEAT_NANOS);
            if (nowNanos - heartbeat > graceNanos &&
                isAlive(pid, buffer.getLongVolatile(base + FileHeader.PROCESS_START_MS)))
            {
                return pid;
            }
        }
        return 0;
    }

    /** @return the number of registered slots. */
    public int attached()
    {
        int n = 0;
        for (int slot = 0; slot < FileHeader.MAX_PROCESSES; slot++)
        {
            if (buffer.getLongVolatile(FileHeader.processOffset(slot) + FileHeader.PROCESS_PID) > 0)
            {
                n++;
            }
        }
        return n;
    }

    static boolean isAlive(final long pid, final long startMs)
    {
        final Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        if (handle.isEmpty() || !handle.get().isAlive())
        {
            return false;
        }
        if (startMs == 0)
        {
            return true;
        }
        final long actual = handle.get().info().startInstant().map(Instant::toEpochMilli).orElse(startMs);
        return Math.abs(actual - startMs) < 1_000; // a recycled pid started at another time
    }
}
