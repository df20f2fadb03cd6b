package dev.floodgate.reader;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;
import dev.floodgate.store.LeaseWords;
import dev.floodgate.store.ShardWords;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Counts the entries a {@link TableScan} walks, by action and kind, live and tombstoned, with the live leases'
 * balances, and keeps none: what a count over {@link FloodgateReader#entries}'s list gives, without a copy per entry
 * (a scrape of the node's meters walks the whole table; copies of 90,000 entries were 24 MB of garbage per scrape,
 * NOTES). Given a {@link BlockedRanking}, it offers the ranking each blocked counter in the same walk.
 *
 * <p>It is both ends of the walk. {@link #decode} reads an entry through one flyweight into this tally's pending
 * fields, with {@link TableEntry}'s own tests ({@link TableEntry#kindOf}, {@link BucketRead}), and returns the tally
 * as the scan's token; the scan hands it to {@link #accept} only when the entry's slot and key still read the same,
 * which counts it (or, unreadable, has the scan skip it, as {@code entries()} does) and has the ranking keep what it
 * was offered. So an entry is counted, and ranked, exactly when {@code entries()} would list it.
 *
 * <p>Not thread-safe (one per walk). Allocates nothing per entry (but a frozen bucket's side record, and what the
 * ranking keeps).
 */
final class EntryTally implements TableScan.Decoder<EntryTally>, TableScan.Sink<EntryTally>
{
    private static final int UNREADABLE = -1;
    private static final int ACTIONS = Action.values().length;
    private static final int KINDS = EntryKind.values().length;

    private final TableScan scan;
    private final int shards;
    private final BlockedRanking ranking;
    private final Entry entry = new Entry();
    private final BucketRead bucket = new BucketRead();
    private final long[] live = new long[ACTIONS * KINDS];
    private final long[] tombstoned = new long[ACTIONS];
    private final long[] leaseBalance = new long[ACTIONS];

    // the entry decode read, counted by accept once the scan finds it still in place
    private int pendingKind;
    private int pendingAction;
    private boolean pendingTombstoned;
    private long pendingBalance;
    private boolean pendingOffered;

    /**
     * @param scan    the walk this tally decodes and counts for: it is told of the unreadable entries.
     * @param shards  the file's shard count.
     * @param ranking offered every blocked counter of the walk; null for none.
     */
    EntryTally(final TableScan scan, final int shards, final BlockedRanking ranking)
    {
        this.scan = scan;
        this.shards = shards;
        this.ranking = ranking;
    }

    @Override
    public EntryTally decode(final byte[] key, final UnsafeBuffer value)
    {
        final int code = TableEntry.kindOf(key, entry.wrap(value), shards);
        if (code == TableEntry.FILE_RECORD)
        {
            return null;
        }
        pendingKind = UNREADABLE;
        pendingTombstoned = false;
        pendingBalance = 0;
        pendingOffered = false;
        if (code != TableEntry.DAMAGED)
        {
            pendingAction = entry.actionOrdinal(); // in range: kindOf tested it
        }
        if (code == Entry.KIND_BUCKET)
        {
            if (bucket.read(entry))
            {
                pendingKind = EntryKind.BUCKET.ordinal();
                pendingTombstoned = bucket.generation == Entry.TOMBSTONE;
            }
        }
        else if (code != TableEntry.DAMAGED)
        {
            pendingKind = code - Entry.KIND_BUCKET;
            pendingTombstoned = entry.generationVolatile() == Entry.TOMBSTONE;
            pendingBalance = code == Entry.KIND_LEASE ? LeaseWords.balanceVolatile(entry) : 0;
            if (code == Entry.KIND_BLOCKED && ranking != null)
            {
                // the stripes after the generation, as TableEntry's copy reads them
                pendingOffered = ranking.offer(entry, pendingAction, pendingTombstoned, blocked());
            }
        }
        return this;
    }

    private long blocked()
    {
        long sum = 0;
        for (int shard = 0; shard < shards; shard++)
        {
            sum += ShardWords.wordVolatile(entry, shard);
        }
        return sum;
    }

    @Override
    public boolean accept(final EntryTally decoded)
    {
        if (pendingKind == UNREADABLE)
        {
            return scan.skip();
        }
        if (pendingTombstoned)
        {
            tombstoned[pendingAction]++;
        }
        else
        {
            live[pendingAction * KINDS + pendingKind]++;
            leaseBalance[pendingAction] += pendingBalance;
        }
        if (pendingOffered)
        {
            ranking.keepOffered();
        }
        return true;
    }

    /** @return the counts so far, every action's summed. */
    EntryCounts counts()
    {
        final long[] kinds = new long[KINDS];
        long allTombstoned = 0;
        long allBalance = 0;
        for (int action = 0; action < ACTIONS; action++)
        {
            for (int kind = 0; kind < KINDS; kind++)
            {
                kinds[kind] += live[action * KINDS + kind];
            }
            allTombstoned += tombstoned[action];
            allBalance += leaseBalance[action];
        }
        return new EntryCounts(kinds[EntryKind.BUCKET.ordinal()], kinds[EntryKind.WINDOW.ordinal()],
            kinds[EntryKind.BLOCKED.ordinal()], kinds[EntryKind.LEASE.ordinal()], allTombstoned, allBalance);
    }

    /** @return the counts so far, by action (every action present). */
    Map<Action, EntryCounts> countsByAction()
    {
        final Map<Action, EntryCounts> counts = new EnumMap<>(Action.class);
        for (int action = 0; action < ACTIONS; action++)
        {
            counts.put(Action.fromOrdinal(action), counts(Action.fromOrdinal(action)));
        }
        return Collections.unmodifiableMap(counts);
    }

    /** @return the live leases so far per action, every action present (0: none). */
    Map<Action, Long> leasesByAction()
    {
        final Map<Action, Long> leases = new EnumMap<>(Action.class);
        for (int action = 0; action < ACTIONS; action++)
        {
            leases.put(Action.fromOrdinal(action), live[action * KINDS + EntryKind.LEASE.ordinal()]);
        }
        return Collections.unmodifiableMap(leases);
    }

    private EntryCounts counts(final Action action)
    {
        final int at = action.ordinal() * KINDS;
        return new EntryCounts(live[at + EntryKind.BUCKET.ordinal()], live[at + EntryKind.WINDOW.ordinal()],
            live[at + EntryKind.BLOCKED.ordinal()], live[at + EntryKind.LEASE.ordinal()], tombstoned[action.ordinal()],
            leaseBalance[action.ordinal()]);
    }
}
