package dev.floodgate;

import dev.floodgate.door.CheckCounters;
import dev.floodgate.door.ClusterGate;
import dev.floodgate.door.Doors;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.store.ClusterCounterRegion;
import dev.floodgate.store.CounterRegion;
import dev.floodgate.store.PolicyRegion;
import dev.floodgate.store.QuotaTable;

import java.lang.ref.Cleaner;
import java.nio.file.Files;
import java.util.Map;

/**
 * One {@link Floodgate}'s hold on its file, from mapping to detaching: maps the table (creating or replacing
 * it), publishes or adopts the policy, wires the doors to this process's check counters and its
 * {@link BackgroundAgent}, and has the file unmapped once its owning {@link Doorkeeper} is unreachable. A failed
 * attachment closes what it mapped. Thread-safe: its parts are; {@link #detach} runs once (the owner's close).
 */
final class Attachment
{
    /** Unmaps a table when its {@code Doorkeeper} is unreachable: no check can be running then. */
    private static final Cleaner UNMAPPER = Cleaner.create(runnable ->
    {
        final Thread thread = new Thread(runnable, "floodgate-unmapper");
        thread.setDaemon(true);
        return thread;
    });

    static
    {
        // before the first Chronicle class loads, which mapping a table does
        if (System.getProperty("chronicle.analytics.disable") == null)
        {
            System.setProperty("chronicle.analytics.disable", "true"); // never phone home from a broker
        }
    }

    private final QuotaTable table;
    private final Doors doors;
    private final CounterRegion counterRegion;
    private final BackgroundAgent agent;
    private final CheckCounters counters;
    private final ClusterGate cluster; // null without a cluster quota
    private final ClusterCounterRegion clusterRegion;

    private Attachment(final Object owner, final FloodgateConfig config, final QuotaTable table)
    {
        this.table = table;
        // first: a missing client fails the attachment before any thread is started
        this.cluster = config.hasClusterQuota() ? ClusterWiring.gate(owner, config, table) : null;
        this.counterRegion = new CounterRegion(table.header());
        this.counters = new CheckCounters(Action.values().length);
        this.clusterRegion = new ClusterCounterRegion(table.header());
        try
        {
            this.agent = new BackgroundAgent(owner, config, table, counters, counterRegion,
                cluster == null ? () -> { } : () -> cluster.flush(clusterRegion));
        }
        catch (final RuntimeException | Error ex)
        {
            closeCluster();
            throw ex;
        }
        final long[] unreachable = new long[Action.values().length];
        for (final Action action : Action.values())
        {
            unreachable[action.ordinal()] = config.admitsWhenUnreachable(action) ? Floodgate.ADMITTED :
                config.unreachableRetryAfterMs();
        }
        try
        {
            table.confirmLockFile(); // registered: a process pairing another lock file now sees this one
            this.doors = new Doors(table, config.capacity(), config.ticker(), agent.clock(), counters,
                agent::requestEmergencyCleanup, unreachable, cluster);
            agent.startJanitor(doors::policy);
            if (cluster != null)
            {
                // the janitor thread may block (bounded) on a refund; a check thread never does
                agent.schedulePeriodic(this::giveBackIdle, cluster.giveBacks().idlePeriodMs());
            }
        }
        catch (final RuntimeException | Error ex)
        {
            // the clock thread is running: left, it would beat into the file the caller unmaps next (found by
            // review: a janitor thread refused at a container's thread limit, then SIGSEGV within 100 ms); and so,
            // for the same reason, is a janitor pass once it has begun
            agent.close();
            closeCluster();
            table.detach();
            agent.awaitJanitor();
            throw ex;
        }
        UNMAPPER.register(owner, table::close); // the action holds the table, never the owner
    }

    private void closeCluster()
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    /**
     * Maps the configured file and attaches {@code owner} to it.
     *
     * @param owner    the {@link Doorkeeper}: the file stays mapped while it is reachable.
     * @param adopting false: publish or adopt as {@link Floodgate#open} says; true: adopt the file's policy,
     *                 refusing a file that has none ({@link Floodgate#openAdopting}).
     * @throws FloodgateFileException naming the file and why it cannot be used.
     */
    static Attachment open(final Object owner, final FloodgateConfig config, final boolean adopting)
    {
        if (adopting && !Files.exists(config.file()))
        {
            // never made here: a typo would leave a whole table behind, refused for want of a policy (found by review)
            throw new FloodgateFileException(config.file(), "no such file (a tool maps a table a broker made)", null);
        }
        final boolean publish = !adopting && PolicyPublisher.publishAsked();
        final QuotaTable table = map(config);
        try
        {
            if (!adopting)
            {
                warnOfCapacity(config, table);
                ClusterWiring.warnOfLimitsWithoutUri(config);
                PolicyPublisher.publishOrAdopt(table, config, publish);
            }
            else if (new PolicyRegion(table.header(), Action.values().length).generationAcquire() == 0)
            {
                throw new FloodgateFileException(config.file(), "has no policy yet (the " +
                    "first JVM to open it publishes one); try again once a broker has opened it", null);
            }
            if (config.preTouch() && config.enabled()) // after the policy: an adopter may be waiting for it
            {
                table.preTouch();
            }
            return new Attachment(owner, config, table);
        }
        catch (final RuntimeException | Error ex)
        {
            table.close();
            throw ex;
        }
    }

    /**
     * A table outlives its JVMs, and its capacity was fixed when it was made: a different configured capacity (raised
     * after table-full events, then restarted) is not in force, which must not go unsaid (found by review).
     */
    private static void warnOfCapacity(final FloodgateConfig config, final QuotaTable table)
    {
        if (table.capacity() != config.capacity())
        {
            System.getLogger("dev.floodgate").log(System.Logger.Level.WARNING, "{0}: capacity {1} configured, but " +
                "the file was made for {2}, which is in force; to resize, remove the file while no JVM has it open",
                config.file(), Long.toString(config.capacity()), Long.toString(table.capacity()));
        }
    }

    /** See {@link Floodgate#createFile}. @return the shard count fixed in the file. */
    static int createFile(final FloodgateConfig config)
    {
        try (QuotaTable table = map(config))
        {
            return table.shards();
        }
    }

    /** Maps the configured file for writing, creating or replacing it as {@link Floodgate#open} says. */
    private static QuotaTable map(final FloodgateConfig config)
    {
        JvmFlags.requireInEffect();
        if (Files.exists(config.file()))
        {
            // Read-only first: mapping for writing makes the lock file beside the table before the table's header
            // can be read, so a file refused then (another format version, foreign, damaged) was left with a lock
            // file it did not have (found by review: reset and policy set on an older Floodgate's table, then a
            // broker's open and createFile, which map it the same way). The same question the writer asks: it
            // refuses those files before it looks at the boot id (a stale table is replaced, not refused), and a
            // file removed since the test above is the writer's to create.
            try
            {
                FloodgateReader.open(config.file()).close();
            }
            catch (final FloodgateFileException refused)
            {
                if (Files.exists(config.file()))
                {
                    throw refused;
                }
            }
        }
        return QuotaTable.open(config.file(), config.capacity(), Runtime.getRuntime().availableProcessors(),
            config.groupReadable(), config.ticker().nanos());
    }

    QuotaTable table()
    {
        return table;
    }

    Doors doors()
    {
        return doors;
    }

    /** @return every process's check counters, this process's own flushed first. See {@link Floodgate#checks}. */
    Map<Action, Stats.Checks> checks()
    {
        agent.flushCounters();
        return counterRegion.checksVolatile();
    }

    /** @return this instance's own check counters, from the heap. */
    Map<Action, Stats.Checks> processChecks()
    {
        final Map<Action, Stats.Checks> checks = new java.util.EnumMap<>(Action.class);
        for (final Action action : Action.values())
        {
            final int a = action.ordinal();
            checks.put(action, new Stats.Checks(counters.sum(a, CounterRegion.ADMITTED),
                counters.sum(a, CounterRegion.REFUSED), counters.sum(a, CounterRegion.SHADOWED),
                counters.sum(a, CounterRegion.NEVER)));
        }
        return Map.copyOf(checks);
    }

    /** @return this process's cluster figures, from the heap; null without a cluster quota. */
    ClusterGate cluster()
    {
        return cluster;
    }

    /** @return the node's cluster counters in the file. */
    ClusterCounterRegion clusterRegion()
    {
        return clusterRegion;
    }

    /**
     * @return entries reaped by a janitor pass run now, on the caller's thread, which also gives back the cluster
     * leases found idle (see {@link dev.floodgate.door.LeaseGiveBack#giveBackIdle}).
     */
    int cleanup()
    {
        final int reaped = agent.cleanupNow();
        if (cluster != null)
        {
            giveBackIdle();
        }
        return reaped;
    }

    /**
     * The idle give-back as one table operation, since it takes balances out of the file: a close waits for it, its
     * refund in flight answered before the client closes ({@link ClusterGate#close}), and none runs once the table is
     * closing (found by review: an operator's cleanup() took a balance out after close returned, lost to the client).
     */
    private void giveBackIdle()
    {
        table.asOneOperation(cluster.giveBacks()::giveBackIdle);
    }

    /**
     * Stops the background threads, folds this process's counts into the file, leaves the registry and waits
     * for table operations in flight, then for the janitor thread's end. Leaves the file mapped: the cleaner unmaps
     * it. Once only.
     */
    void detach()
    {
        final boolean lastOfNode = cluster != null && agent.lastAttached(); // before leaving the registry
        agent.close(); // interrupts the janitor's task: an idle give-back's refund waits it out (ClusterGate.close)
        try
        {
            if (lastOfNode)
            {
                // the node's last JVM gives its leases' balances back, in about a second at most; a JVM with
                // siblings leaves the balances to them, which they spend, or give back once idle. Out of the
                // registry by now, but no other process's janitor can reap these leases meanwhile: it tombstones a
                // lease only after a day without a refill, and waits a grace period after that
                cluster.giveBacks().giveBackAll(doors);
            }
        }
        finally
        {
            // whatever the give-back met, the client's threads stop and the file is left as a close leaves it
            if (cluster != null)
            {
                cluster.close(); // leases in flight end unavailable and write nothing once the owner is gone
                cluster.flush(clusterRegion); // the last counts, those of the leases closing ended included
            }
            table.detach();
            agent.awaitJanitor(); // its pass in flight fails at its next step once the table is detached
        }
    }
}
