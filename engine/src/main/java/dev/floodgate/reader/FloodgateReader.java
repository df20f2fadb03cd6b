package dev.floodgate.reader;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.FloodgatePolicy;
import dev.floodgate.Stats;
import dev.floodgate.store.CounterRegion;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.GuardRegion;
import dev.floodgate.FloodgateFileException;
import dev.floodgate.store.ProcessRegistry;
import dev.floodgate.store.SlotLocks;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A read-only view of a Floodgate table, after Aeron's {@code CountersReader}: it maps the file read-only
 * (a channel opened for reading only; the pages are mapped without write permission) and reads it without
 * Chronicle Map, without any lock and without the table guard. It never creates, replaces, repairs or
 * publishes anything, so a user with only read permission can use it, on a read-only file system too, while
 * any number of writers run.
 *
 * <p>Guarantees under concurrent writers: every word is read atomically; the file's identity is immutable;
 * counters are each exact but not a snapshot together; the policy is a consistent copy of one generation; an
 * entry is returned only when its hash slot and key read the same before and after its value was copied, so
 * it is an entry that existed, though its state words may have moved on while they were read. Not
 * guaranteed: a snapshot across entries (a walk races inserts, removals and Chronicle Map's backward-shift
 * deletions, so an entry may be missed, or seen twice, in one walk); entries in tiers chained after the file
 * was mapped ({@link #unreadableEntries} counts them). A damaged or foreign file is refused with a
 * {@link FloodgateFileException} naming it; a damaged entry is skipped and counted.
 *
 * <p>Not thread-safe: one thread at a time, and not after {@link #close}.
 */
public final class FloodgateReader implements AutoCloseable
{
    private final ReadOnlyMapping mapping;
    private final ChronicleLayout layout;
    private final FileHeader header;
    private final UnsafeBuffer guard;
    private final int shards;
    private final PolicyCopy policy;
    private long unreadable;

    private FloodgateReader(final ReadOnlyMapping mapping)
    {
        this.mapping = mapping;
        this.layout = ChronicleLayout.read(mapping);
        this.guard = mapping.view(layout.segmentHeadersOffset - GuardRegion.LENGTH, GuardRegion.LENGTH,
            "the table guard");
        this.header = HeaderSearch.find(mapping, layout);
        this.shards = header.shards();
        this.policy = new PolicyCopy(header);
    }

    /**
     * Maps an existing table read-only. Never creates the file.
     *
     * @param path the table; a relative path is resolved against the working directory, once, here (only a
     *             writer must name the node's table absolutely), and the reader names the absolute one.
     * @return the reader; close it to unmap.
     * @throws FloodgateFileException naming the file, absolute, when it is missing, unreadable, foreign or damaged.
     */
    public static FloodgateReader open(final Path path)
    {
        final Path file = Objects.requireNonNull(path, "file").toAbsolutePath();
        final ReadOnlyMapping mapping = ReadOnlyMapping.open(file);
        try
        {
            return new FloodgateReader(mapping);
        }
        catch (final RuntimeException | InternalError ex)
        {
            mapping.close();
            if (ex instanceof FloodgateFileException known)
            {
                throw known;
            }
            // InternalError: a page fault past the file's end (truncated after it was mapped)
            throw new FloodgateFileException(file, "damaged: " + ex.getMessage(), ex);
        }
    }

    /** @return the file, absolute: the one {@link #open} opened. */
    public Path file()
    {
        return mapping.file();
    }

    /** @return the file's identity. */
    public FileIdentity identity()
    {
        return new FileIdentity(header.version(), shards, header.capacity(), header.createdWallMs(),
            header.bootId().toString(), mapping.size());
    }

    /** @return the policy every writer enforces now: a consistent copy of one generation (0: none yet). */
    public FloodgatePolicy policy()
    {
        return mapping.damagedIfFaults(policy::policy);
    }

    /** @return per action, the check counters of every process that has had the file open. */
    public Map<Action, Stats.Checks> checks()
    {
        return mapping.damagedIfFaults(() -> new CounterRegion(header).checksVolatile());
    }

    /**
     * The node's cluster-quota figures: the lease entries among {@code entries} (a walk of this reader) and the
     * counters every JVM of the node adds to the file.
     *
     * @param entries entries from {@link #entries}.
     * @return live leases, their unused balance, and the node's cluster counters.
     */
    public ClusterStats.Node cluster(final List<TableEntry> entries)
    {
        return mapping.damagedIfFaults(() -> readCluster(entries));
    }

    /**
     * As {@link #cluster(List)}, with the lease entries of a count ({@link #countEntries}) instead of a list.
     *
     * @param counts a count of this reader.
     * @return live leases, their unused balance, and the node's cluster counters.
     */
    public ClusterStats.Node cluster(final EntryCounts counts)
    {
        return mapping.damagedIfFaults(() -> CounterReads.cluster(header, counts.leases(), counts.leaseBalance()));
    }

    private ClusterStats.Node readCluster(final List<TableEntry> entries)
    {
        long held = 0;
        long unused = 0;
        for (final TableEntry entry : entries)
        {
            if (entry.kind() == EntryKind.LEASE && !entry.tombstoned())
            {
                held++;
                unused += entry.leaseBalance();
            }
        }
        return CounterReads.cluster(header, held, unused);
    }

    /** @return the table-wide counters and the table guard's record. */
    public TableCounters counters()
    {
        return mapping.damagedIfFaults(() -> CounterReads.counters(mapping, layout, header, guard));
    }

    /** @return processes that have the file open now. */
    public int attachedProcesses()
    {
        // liveness is the kernel's word: a slot counts while its owner holds the slot's lock in the lock file
        final SlotLocks locks = SlotLocks.acquireReadOnly(mapping.file());
        try
        {
            return ProcessRegistry.attached(header, locks);
        }
        finally
        {
            if (locks != null)
            {
                locks.release();
            }
        }
    }

    /**
     * Copies every quota entry, tombstoned ones included, walking the file once.
     *
     * @return the entries, in file order.
     */
    public List<TableEntry> entries()
    {
        final List<TableEntry> entries = new ArrayList<>();
        final TableScan scan = new TableScan(mapping, layout);
        final BucketRead bucket = new BucketRead();
        mapping.damagedIfFaults(() ->
        {
            // an entry still in place that decode could not read (damaged, or converted under every read) is
            // counted, as a torn one is, not dropped unsaid (found by review)
            scan.forEach((key, value) -> TableEntry.decode(key, value, shards, bucket),
                entry -> entry == TableEntry.UNREADABLE ? scan.skip() : entries.add(entry));
            return null;
        });
        unreadable = scan.skipped();
        return Collections.unmodifiableList(entries);
    }

    /**
     * Counts every quota entry by kind, live and tombstoned, and the live leases' balances, walking the file once as
     * {@link #entries} does: the counts of the entries it would list, with none copied. What a summary needs
     * ({@code Floodgate.stats()}, on every scrape of the meters), in a constant few objects whatever the table holds.
     *
     * @return the counts.
     */
    public EntryCounts countEntries()
    {
        return tally(null).counts();
    }

    /**
     * As {@link #countEntries}, by action, and ranking the blocked counters in the same walk: what {@code floodgate
     * stats}, {@code top} and {@code watch} show, and {@code Floodgate.topBlocked}, with a copy of only the counters
     * the ranking keeps ({@link BlockedRanking}), whatever the table holds.
     *
     * @param ranking offered every blocked counter the walk counts, each as {@link #entries} would list it; null to
     *                rank none. Read it ({@link BlockedRanking#top}) after this returns.
     * @return the counts of every action, each present.
     */
    public Map<Action, EntryCounts> countEntriesByAction(final BlockedRanking ranking)
    {
        return tally(ranking).countsByAction();
    }

    /**
     * Counts the live lease entries of each action, walking the file once as {@link #countEntries} does, none copied.
     * A lease entry holds the node's balance of one (identifier, action)'s cluster quota, made by a JVM of the node
     * configured with a cluster quota for that action (and dropped by the janitor a day after its last refill), so
     * it says that such a JVM has run on this node; whether the JVMs attached now still have that configuration,
     * which is theirs and not the file's, the file cannot say. What {@code floodgate policy set} reads to tell the
     * operator that switching an action's node quota off leaves its cluster quota in force.
     *
     * @return per action, every action present, the live lease entries (0: none).
     */
    public Map<Action, Long> countLeases()
    {
        return tally(null).leasesByAction();
    }

    private EntryTally tally(final BlockedRanking ranking)
    {
        final TableScan scan = new TableScan(mapping, layout);
        final EntryTally tally = new EntryTally(scan, shards, ranking);
        mapping.damagedIfFaults(() ->
        {
            scan.forEach(tally, tally);
            return null;
        });
        unreadable = scan.skipped();
        return tally;
    }

    /**
     * @return entries (or chained tiers) the last {@link #entries}, {@link #countEntries}, {@link #countLeases} or
     * {@link #countEntriesByAction} walk skipped: torn by a writer, or damaged.
     */
    public long unreadableEntries()
    {
        return unreadable;
    }

    /**
     * What an entry means at {@code nowNanos}, with the doors' own arithmetic under the file's current policy
     * ({@link EntryState} says how).
     *
     * @param entry    an entry of this file.
     * @param nowNanos the monotonic time (the writers' clock: same host, same boot).
     * @return its state.
     */
    public EntryState state(final TableEntry entry, final long nowNanos)
    {
        return EntryState.at(entry, policy.blocks()[entry.action().ordinal()], shards, nowNanos);
    }

    /** Unmaps the file. */
    @Override
    public void close()
    {
        mapping.close();
    }
}
