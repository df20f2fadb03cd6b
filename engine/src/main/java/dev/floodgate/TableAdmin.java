package dev.floodgate;

import dev.floodgate.door.TokenBucket;
import dev.floodgate.reader.BlockedCount;
import dev.floodgate.reader.BlockedRanking;
import dev.floodgate.reader.EntryCounts;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableCounters;
import dev.floodgate.store.BucketWords;
import dev.floodgate.store.Entry;
import dev.floodgate.store.KeyHasher;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.ShardWords;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The facade's operations for operators and dashboards rather than for checks: reset, an identifier's refusals,
 * the most-refused identifiers and the summary. The ranking and the summary read through {@link FloodgateReader},
 * without the table guard or any lock, so they never delay a check. Stateless.
 */
final class TableAdmin
{
    private TableAdmin()
    {
    }

    /** See {@link Floodgate#resetEntries}. Each kind under its segment's write lock. */
    static List<String> reset(final QuotaTable table, final Ticker ticker, final CharSequence identifier,
        final Action action)
    {
        final List<String> removed = new ArrayList<>(3);
        final KeyHasher hasher = table.hasher();
        final byte[] kinds = {Entry.KIND_BUCKET, Entry.KIND_WINDOW, Entry.KIND_BLOCKED};
        for (int k = 0; k < kinds.length; k++)
        {
            try
            {
                resetKind(table, ticker, hasher.key(identifier, action, kinds[k]), kinds[k], removed);
            }
            catch (final TableBusyException busy)
            {
                // each kind is reset under its own segment's lock: say which already were, so a retry's
                // report (and the operator) can tell
                final List<String> rest = new ArrayList<>(3);
                for (int r = k; r < kinds.length; r++)
                {
                    rest.add(name(kinds[r]));
                }
                throw new TableBusyException(busy.getMessage() + "; reset before it: " + removed +
                    ", not reset: " + rest + " (a retry resets the rest)");
            }
        }
        return removed;
    }

    private static String name(final byte kind)
    {
        return kind == Entry.KIND_BUCKET ? "bucket" : kind == Entry.KIND_WINDOW ? "window" : "blocked";
    }

    private static void resetKind(final QuotaTable table, final Ticker ticker, final byte[] key, final byte kind,
        final List<String> removed)
    {
        final int outcome = table.locked().withWriteLock(key, value ->
        {
            // a tombstoned entry too: the janitor's tombstone keeps the state, which a check's revival brings
            // back (found by review: a blocked count reset within the grace came back 5 refusals high); it is
            // said to be cleared only when it held some (a second reset finds nothing)
            final long now = ticker.nanos();
            final boolean held = !value.isTombstonedVolatile() || holdsState(kind, value, now);
            if (kind == Entry.KIND_BUCKET)
            {
                BucketWords.putTatVolatile(value, new TokenBucket(value.limit(), value.windowMs()).fullWord(now));
            }
            else
            {
                for (int shard = 0, n = ShardWords.count(value); shard < n; shard++)
                {
                    ShardWords.putWordVolatile(value, shard, 0); // window words, blocked stripes
                }
            }
            // A reset entry is logically gone: checks holding its address go back to the table, and the
            // janitor removes it after the grace period unless a check revives it first.
            value.tombstoneVolatile(now, value.stateSumVolatile());
            if (held)
            {
                removed.add(name(kind));
            }
            return false;
        });
        assert outcome >= 0;
    }

    /**
     * @return whether a tombstoned entry holds state a check's revival would bring back: a bucket not full, or a
     * blocked count. A window's words are of windows over (the janitor tombstones it only then), which a revival
     * never counts in (found by review: an idle window was said to be cleared).
     */
    private static boolean holdsState(final byte kind, final Entry value, final long nowNanos)
    {
        if (kind == Entry.KIND_BUCKET)
        {
            return !new TokenBucket(value.limit(), value.windowMs()).isFull(BucketWords.tatVolatile(value), nowNanos);
        }
        return kind == Entry.KIND_BLOCKED && ShardWords.blockedCountVolatile(value) != 0;
    }

    /** See {@link Floodgate#blockedCount}. Under the segment's guard and read lock. */
    static long blockedCount(final QuotaTable table, final CharSequence identifier, final Action action)
    {
        return table.locked().readValue(Entry.KIND_BLOCKED, action, identifier, ShardWords::blockedCountVolatile, 0);
    }

    /**
     * See {@link Floodgate#topBlocked}. One walk that copies only the {@code n} counters it keeps
     * ({@link BlockedRanking}): a dashboard may call this as often as it scrapes.
     */
    static List<BlockedEntry> topBlocked(final QuotaTable table, final Action action, final int n)
    {
        // a tombstoned count is listed while a revival would bring it back (the janitor keeps it for its grace); one
        // a reset zeroed is not
        final BlockedRanking ranking = BlockedRanking.withRevivable(action, n);
        try (FloodgateReader reader = reader(table))
        {
            reader.countEntriesByAction(ranking);
        }
        final List<BlockedCount> top = ranking.top();
        final List<BlockedEntry> entries = new ArrayList<>(top.size());
        for (final BlockedCount counter : top)
        {
            entries.add(new BlockedEntry(counter.label(), counter.blocked()));
        }
        return List.copyOf(entries);
    }

    /**
     * See {@link Floodgate#stats}. Entry counts are not a snapshot across segments. One counting walk that copies no
     * entry ({@link FloodgateReader#countEntries}): every scrape of the meters calls this.
     */
    static Stats stats(final QuotaTable table, final Map<Action, Stats.Checks> checks,
        final ClusterStats.Connection connection)
    {
        try (FloodgateReader reader = reader(table))
        {
            final EntryCounts counts = reader.countEntries();
            final TableCounters c = reader.counters();
            return new Stats(counts.buckets(), counts.windows(), counts.blocked(), counts.tombstoned(),
                table.capacity(), table.shards(), Map.copyOf(c.tableFull()), Map.copyOf(c.degraded()), c.guardRepairs(),
                c.janitorRuns(), c.reaped(), c.revived(), reader.attachedProcesses(), table.fileSize(), checks,
                reader.cluster(counts), connection, c.tierRepairs(), c.tierDivergences(), c.entryCount(),
                c.fileEntryCount());
        }
    }

    /**
     * The read-only reader of {@code table}'s file, by path, checked to be the file this instance maps: read by
     * path, a table removed from under this instance read as "no such file", or as another table's figures.
     */
    private static FloodgateReader reader(final QuotaTable table)
    {
        if (table.atItsPath())
        {
            final FloodgateReader reader = FloodgateReader.open(table.file());
            if (table.atItsPath())
            {
                return reader;
            }
            reader.close();
        }
        throw new FloodgateFileException(table.file(), "is no longer the table this instance maps (removed or " +
            "replaced at its path after it was opened): it still enforces on its own mapping, but its figures are " +
            "read by path and cannot be", null);
    }
}
