package dev.floodgate.store;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * The guard-taking operations of one {@link QuotaTable} in flight, and their end: once {@link #endAndAwait}
 * has run, {@link #enter} refuses. A table releases its process slot only when none is in flight, so no guard
 * of this process can outlive its slot (another process would take it over while we are inside). Thread-safe.
 */
final class Operations
{
    private final Path file;
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile boolean ended;

    Operations(final Path file)
    {
        this.file = file;
    }

    /**
     * Counts an operation in.
     *
     * @throws IllegalStateException once the table is detached.
     */
    void enter()
    {
        inFlight.incrementAndGet();
        if (ended)
        {
            inFlight.decrementAndGet();
            throw new IllegalStateException(file + ": this table was closed");
        }
    }

    /** Counts an operation out. */
    void exit()
    {
        inFlight.decrementAndGet();
    }

    /**
     * @return true once {@link #endAndAwait} has begun: an operation of many steps (a whole-table scan) stops at its
     * next step, so that a closing table waits for one step of it, not for all of them.
     */
    boolean ended()
    {
        return ended;
    }

    /**
     * Refuses new operations and waits for those in flight (each is bounded by its guard timeout). An interrupt does
     * not end the wait (the slot must not be released under an operation); the caller's status is kept and given back.
     *
     * @param timeoutNanos how long to wait at most.
     * @return true the first time it is called and nothing is left in flight: the caller may release the slot.
     */
    synchronized boolean endAndAwait(final long timeoutNanos)
    {
        if (ended)
        {
            return false;
        }
        ended = true;
        final long deadline = System.nanoTime() + timeoutNanos;
        // parkNanos does not park while the status is set: with it set, this loop spun on a core until the operations
        // ended (found by review of close() on an interrupted thread; OperationsInterruptTest)
        boolean interrupted = Thread.interrupted();
        while (inFlight.get() > 0 && System.nanoTime() - deadline < 0)
        {
            LockSupport.parkNanos(100_000L);
            interrupted |= Thread.interrupted();
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
        if (inFlight.get() > 0)
        {
            // never release a slot under an operation that may hold a guard: keep it until the JVM exits
            System.getLogger("dev.floodgate").log(System.Logger.Level.ERROR, "{0}: {1} table operations still " +
                "running at close; this process keeps its slot", file, inFlight.get());
            return false;
        }
        return true;
    }
}
