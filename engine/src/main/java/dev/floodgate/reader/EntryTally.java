package dev.floodgate.reader;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;
import dev.floodgate.store.LeaseWords;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * Counts the entries a {@link TableScan} walks, by kind, live and tombstoned, with the live leases' balances and
 * their number per action, and keeps none: what a count over {@link FloodgateReader#entries}'s list gives, without a copy per entry (a scrape of
 * the node's meters walks the whole table; copies of 90,000 entries were 24 MB of garbage per scrape, NOTES).
 *
 * <p>It is both ends of the walk. {@link #decode} reads an entry through one flyweight into this tally's pending
 * fields, with {@link TableEntry}'s own tests ({@link TableEntry#kindOf}, {@link BucketRead}), and returns the tally
 * as the scan's token; the scan hands it to {@link #accept} only when the entry's slot and key still read the same,
 * which counts it (or, unreadable, has the scan skip it, as {@code entries()} does). So an entry is counted exactly
 * when {@code entries()} would list it.
 *
 * <p>Not thread-safe (one per walk). Allocates nothing per entry (but a frozen bucket's side record).
 */
final class EntryTally implements TableScan.Decoder<EntryTally>, TableScan.Sink<EntryTally>
{
    private static final int UNREADABLE = -1;

    private final TableScan scan;
    private final int shards;
    private final Entry entry = new Entry();
    private final BucketRead bucket = new BucketRead();
    private final long[] live = new long[EntryKind.values().length];
    private final long[] leasesByAction = new long[Action.values().length];
    private long tombstoned;
    private long leaseBalance;

    // the entry decode read, counted by accept once the scan finds it still in place
    private int pendingKind;
    private int pendingAction;
    private boolean pendingTombstoned;
    private long pendingBalance;

    /**
     * @param scan   the walk this tally decodes and counts for: it is told of the unreadable entries.
     * @param shards the file's shard count.
     */
    EntryTally(final TableScan scan, final int shards)
    {
        this.scan = scan;
        this.shards = shards;
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
            pendingAction = entry.actionOrdinal(); // in range: kindOf tested it
            pendingTombstoned = entry.generationVolatile() == Entry.TOMBSTONE;
            pendingBalance = code == Entry.KIND_LEASE ? LeaseWords.balanceVolatile(entry) : 0;
        }
        return this;
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
            tombstoned++;
        }
        else
        {
            live[pendingKind]++;
            leaseBalance += pendingBalance;
            if (pendingKind == EntryKind.LEASE.ordinal())
            {
                leasesByAction[pendingAction]++;
            }
        }
        return true;
    }

    /** @return the counts so far. */
    EntryCounts counts()
    {
        return new EntryCounts(live[EntryKind.BUCKET.ordinal()], live[EntryKind.WINDOW.ordinal()],
            live[EntryKind.BLOCKED.ordinal()], live[EntryKind.LEASE.ordinal()], tombstoned, leaseBalance);
    }

    /** @return the live leases so far per action, every action present (0: none). */
    Map<Action, Long> leasesByAction()
    {
        final Map<Action, Long> leases = new EnumMap<>(Action.class);
        for (final Action action : Action.values())
        {
            leases.put(action, leasesByAction[action.ordinal()]);
        }
        return Collections.unmodifiableMap(leases);
    }
}
