package dev.floodgate;

import dev.floodgate.door.CheckCounters;
import dev.floodgate.door.CoarseClock;
import dev.floodgate.door.PolicySnapshot;
import dev.floodgate.janitor.Janitor;
import dev.floodgate.store.CounterRegion;
import dev.floodgate.store.ProcessRegistry;
import dev.floodgate.store.QuotaTable;

import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * What a {@link Floodgate} runs in the background: its registration in the file's process registry, the clock
 * thread (the window door's coarse clock, which also heartbeats and flushes this process's check counters)
 * and the janitor thread (scheduled passes, and one on demand when a check finds the table full).
 *
 * <p>Its threads hold the owning {@link Doorkeeper} (through {@link #owner}): an open instance never becomes
 * unreachable, so the cleaner that unmaps the file never runs under a janitor pass or a heartbeat.
 * Thread-safe.
 */
final class BackgroundAgent
{
    private static final System.Logger LOG = System.getLogger("dev.floodgate");
    private static final long HEARTBEAT_NANOS = 100_000_000L;
    /** A heartbeat gap this long means the process was stopped: reclamation waits a grace period after it. */
    private static final long STALL_NANOS = 1_000_000_000L;

    /** Never read: held so that these threads keep the owner, and so the mapping, reachable while open. */
    @SuppressWarnings("unused")
    private final Object owner;
    private final FloodgateConfig config;
    private final QuotaTable table;
    private final CheckCounters counters;
    private final CounterRegion counterRegion;
    /** Adds this process's cluster counts to the node's (nothing without a cluster quota). */
    private final Runnable clusterFlush;
    private final ProcessRegistry registry;
    private final int registrySlot;
    private final CoarseClock clock;
    private final ScheduledExecutorService janitorThread;
    private volatile Thread janitorThreadItself; // the executor's one thread, once made: awaitJanitor joins it
    private final AtomicBoolean emergencyPending = new AtomicBoolean();
    private volatile Janitor janitor;
    private volatile boolean closed;

    /** Registers this process in the file and starts the clock thread; {@link #startJanitor} follows. */
    BackgroundAgent(final Object owner, final FloodgateConfig config, final QuotaTable table,
        final CheckCounters counters, final CounterRegion counterRegion, final Runnable clusterFlush)
    {
        this.clusterFlush = clusterFlush;
        this.owner = owner;
        this.config = config;
        this.table = table;
        this.counters = counters;
        this.counterRegion = counterRegion;
        final long graceNanos = config.reclaimGraceMs() * 1_000_000L;
        this.registry = new ProcessRegistry(table.header(), table.locks(), Math.min(STALL_NANOS, graceNanos / 2));
        table.confirmLockFile(); // before registering over a slot another lock file's process may own
        this.registrySlot = registry.register(table.owner(), config.ticker().nanos());
        counters.inherit(counterRegion, registrySlot);
        this.clock = new CoarseClock(config.ticker(), this::heartbeat, HEARTBEAT_NANOS, "floodgate-clock");
        this.janitorThread = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread thread = new Thread(r, "floodgate-janitor");
            thread.setDaemon(true);
            janitorThreadItself = thread;
            return thread;
        });
    }

    /** @return the window door's coarse clock. */
    CoarseClock clock()
    {
        return clock;
    }

    /** Starts the janitor's scheduled passes, judging windows by {@code policy}. */
    void startJanitor(final Supplier<PolicySnapshot> policy)
    {
        janitor = new Janitor(table, registry, config.ticker(), config.reclaimGraceMs() * 1_000_000L, registrySlot,
            policy);
        janitorThread.scheduleWithFixedDelay(this::scheduledCleanup, config.cleanupIntervalMs(),
            config.cleanupIntervalMs(), TimeUnit.MILLISECONDS);
    }

    /** Runs {@code task} on the janitor thread every {@code periodMs}, after the first period. */
    void schedulePeriodic(final Runnable task, final long periodMs)
    {
        janitorThread.scheduleWithFixedDelay(() -> runLogged(task, "periodic task"), periodMs, periodMs,
            TimeUnit.MILLISECONDS);
    }

    /**
     * @return whether this is the only live process attached to the file (counted before it leaves the
     * registry): two closing at once may each see the other, and then neither is the last.
     */
    boolean lastAttached()
    {
        return registry.attached() <= 1;
    }

    /** @return entries reaped by a janitor pass run now, on the caller's thread. */
    int cleanupNow()
    {
        return janitor.runPass().reaped();
    }

    /** Folds this process's counts since the last heartbeat into its block of the file. */
    void flushCounters()
    {
        counters.flush(counterRegion, registrySlot);
        clusterFlush.run();
    }

    /** A check found the table full: run a janitor pass now, on the janitor thread, unless one is pending. */
    void requestEmergencyCleanup()
    {
        if (emergencyPending.compareAndSet(false, true))
        {
            try
            {
                janitorThread.execute(() ->
                {
                    emergencyPending.set(false);
                    scheduledCleanup();
                });
            }
            catch (final RejectedExecutionException closing)
            {
                emergencyPending.set(false);
            }
        }
    }

    /**
     * Stops both threads: the clock thread has ended when this returns; the janitor thread runs no new task, and its
     * task in flight is interrupted ({@link #awaitJanitor} waits for it). Flushes the last counts (they stay in this
     * slot's block) and leaves the registry.
     */
    void close()
    {
        closed = true;
        janitorThread.shutdownNow();
        clock.close();
        counters.seal(counterRegion, registrySlot);
        registry.unregister(table.owner());
    }

    /**
     * Waits, after {@link #close} and once the table is detached, for the janitor thread's task in flight to end,
     * uninterruptibly and with no bound, as {@link CoarseClock#close} waits for the clock thread: then nothing of it
     * runs after {@code Floodgate.close} returns. Short: a pass is one table operation, which the detach waited for
     * and which fails at its next step since; an idle give-back, waited for before the client closed, has ended.
     * Before, close returned with the thread still running, and an idle give-back could take a lease's balance after
     * its process had left the file (found by review).
     */
    void awaitJanitor()
    {
        final Thread thread = janitorThreadItself; // null when none was made; after shutdownNow, none is
        boolean interrupted = false;
        while (thread != null && thread.isAlive() && thread != Thread.currentThread())
        {
            try
            {
                thread.join(); // the thread ends once its task has: the executor gives a stopped worker no more
            }
            catch (final InterruptedException ex)
            {
                interrupted = true;
            }
        }
        if (interrupted)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void heartbeat()
    {
        registry.heartbeat(registrySlot, config.ticker()::nanos);
        counters.flush(counterRegion, registrySlot);
        clusterFlush.run();
    }

    private void scheduledCleanup()
    {
        runLogged(janitor::runPass, "janitor pass");
    }

    /**
     * Runs a task of the janitor thread's. Nothing may leave it: whatever a scheduled task throws, an {@code Error}
     * or a failing log included, makes its executor cancel it for good, silently (found by review: one pass out of
     * heap, or one whose error log threw, and no pass ran again while the JVM lived; the table filled up).
     */
    private void runLogged(final Runnable task, final String what)
    {
        try
        {
            task.run();
        }
        catch (final Throwable ex)
        {
            if (!closed) // a task cut short by close is no failure
            {
                try
                {
                    LOG.log(System.Logger.Level.ERROR, what + " over " + config.file() + " failed", ex);
                }
                catch (final Throwable logFailed)
                {
                    // said nowhere, but the next run comes
                }
            }
        }
    }
}
