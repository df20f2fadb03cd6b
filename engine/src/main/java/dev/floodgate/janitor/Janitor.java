package dev.floodgate.janitor;

import dev.floodgate.Action;
import dev.floodgate.Ticker;
import dev.floodgate.door.ShardedWindow;
import dev.floodgate.door.TokenBucket;
import dev.floodgate.store.BucketWords;
import dev.floodgate.store.Entry;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.KeyHasher;
import dev.floodgate.store.LeaseWords;
import dev.floodgate.store.ProcessRegistry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.ShardWords;
import dev.floodgate.store.WriteLockedAction;
import dev.floodgate.TableBusyException;

import java.util.ArrayList;
import java.util.List;

/**
 * Reaps idle entries without ever freeing memory that a check in some process may still be about to write.
 *
 * <p>Checks hold the addresses of entries and write to them with no lock; Chronicle Map reuses a removed
 * entry's memory for the very next insert. So removal takes two passes at least a grace period apart:
 * <ol>
 * <li>An idle entry is <em>tombstoned</em> under its segment's write lock: its state fingerprint and the time
 * are recorded, then its generation becomes {@link Entry#TOMBSTONE}. Every check compares the generation
 * with the one it cached before writing, so from here on new checks go back to the table (and revive the
 * entry under a new generation).</li>
 * <li>A tombstone at least {@code grace} old is removed under the write lock if its state still matches the
 * fingerprint (no check that passed its generation test before the tombstone has written since) and no
 * attached process is frozen (heartbeat older than the grace period, yet alive). If a check did land, the
 * entry is revived instead.</li>
 * </ol>
 * What this leaves open: one thread of a heartbeating process descheduled for longer than the grace period
 * between its generation test and its compare-and-set. NOTES.md bounds it.
 *
 * <p>Idle means: a bucket that has refilled completely, judged in the units stored in the entry; a window
 * entry none of whose shards holds the window the file's policy has in force, or a newer one; a {@code DASHBOARD_API} blocked count
 * whose bucket and window are gone; any other blocked count untouched for {@link #BLOCKED_IDLE_NANOS}; a cluster
 * lease with no refill in flight and none for as long.
 * Any number of janitors, in any processes, may run at once: every decision is re-checked under the lock.
 */
public final class Janitor
{
    /** Other blocked counters are reaped after a day without a refusal. */
    public static final long BLOCKED_IDLE_NANOS = 24L * 3600 * 1_000_000_000L;

    private final QuotaTable table;
    private final ProcessRegistry registry;
    private final Ticker ticker;
    private final long graceNanos;
    private final int ownSlot;
    private final java.util.function.Supplier<dev.floodgate.door.PolicySnapshot> policy;

    /**
     * @param table      the table.
     * @param registry   its process registry.
     * @param ticker     monotonic time.
     * @param graceNanos how long a tombstone stands before removal.
     * @param ownSlot    this instance's registry slot.
     * @param policy     the file's current policy (window numbering).
     */
    public Janitor(final QuotaTable table, final ProcessRegistry registry, final Ticker ticker,
        final long graceNanos, final int ownSlot, final java.util.function.Supplier<dev.floodgate.door.PolicySnapshot> policy)
    {
        this.policy = policy;
        this.table = table;
        this.registry = registry;
        this.ticker = ticker;
        this.graceNanos = graceNanos;
        this.ownSlot = ownSlot;
    }

    /** What one pass did. */
    public record PassResult(int reaped, int tombstoned, int revived, long frozenPid)
    {
    }

    /**
     * Runs one pass, as one operation of the table ({@link QuotaTable#asOneOperation}): a close waits for the step
     * it is in, the rest of it fails, and nothing of it touches the file once the close has returned.
     *
     * @return what it did.
     * @throws IllegalStateException when the table is closed, before or during the pass.
     */
    public PassResult runPass()
    {
        final long now = ticker.nanos();
        return table.asOneOperation(() -> pass(now));
    }

    private PassResult pass(final long now)
    {
        final FileHeader header = table.header();
        header.addCounter(FileHeader.JANITOR_RUNS_OFFSET, 1);
        registry.heartbeat(ownSlot, ticker::nanos);
        registry.freeDead();
        final long frozenPid = registry.reclaimBlocker(now, graceNanos);

        final List<byte[]> expired = new ArrayList<>();
        final List<byte[]> idle = new ArrayList<>();
        final List<Orphan> orphanCandidates = new ArrayList<>();
        // visits copies with no guard held, so a segment's cold checks go on while its entries are judged; every
        // decision made from a copy is made again below, under the entry's lock (the orphan's fingerprint is a
        // verified copy of the counter's, taken before its orphan test as before)
        table.scans().forEachEntryUnguarded((key, value) ->
        {
            if (value.isTombstonedVolatile())
            {
                if (now - value.tombstonedAtNanos() >= graceNanos)
                {
                    expired.add(KeyHasher.copyKey(key));
                }
            }
            else if (value.kind() == Entry.KIND_BLOCKED && value.actionOrdinal() == Action.DASHBOARD_API.ordinal())
            {
                // judged below, outside the scan (it needs two lookups); the fingerprint first, as for idleness
                orphanCandidates.add(new Orphan(KeyHasher.copyKey(key), value.stateSumVolatile()));
            }
            else if (isIdle(value, now))
            {
                idle.add(KeyHasher.copyKey(key));
            }
        });
        final List<Orphan> orphans = new ArrayList<>();
        for (final Orphan candidate : orphanCandidates)
        {
            // a DASHBOARD_API blocked count goes with its bucket (and window); a tombstone is never a loss,
            // since a refusal after it revives the counter
            try
            {
                if (!table.locked().isLive(KeyHasher.withKind(candidate.key, Entry.KIND_BUCKET)) &&
                    !table.locked().isLive(KeyHasher.withKind(candidate.key, Entry.KIND_WINDOW)))
                {
                    orphans.add(candidate);
                }
            }
            catch (final TableBusyException held)
            {
                // a stopped process holds that segment: judge the counter on a later pass
            }
        }

        int reaped = 0;
        int revived = 0;
        if (frozenPid == 0)
        {
            for (final byte[] key : expired)
            {
                final int[] outcome = {0};
                writeLocked(key, value ->
                {
                    if (!value.isTombstonedVolatile())
                    {
                        return false; // a check revived it
                    }
                    if (now - value.tombstonedAtNanos() < graceNanos)
                    {
                        // tombstoned again since the scan (revived, then judged idle by another janitor, or reset):
                        // a check that revived it may still be between its generation test and its write
                        return false;
                    }
                    if (value.stateSumVolatile() == value.tombstoneStateSum())
                    {
                        outcome[0] = 1;
                        return true;
                    }
                    value.publishGenerationVolatile(header.nextGeneration());
                    outcome[0] = 2; // a check that had passed its generation test wrote after the tombstone
                    return false;
                });
                reaped += outcome[0] == 1 ? 1 : 0;
                revived += outcome[0] == 2 ? 1 : 0;
            }
        }
        int tombstoned = 0;
        for (final byte[] key : idle)
        {
            final boolean[] done = {false};
            writeLocked(key, value ->
            {
                final long sum = value.stateSumVolatile(); // before the idle test: see Entry.tombstoneVolatile
                // the clock after the fingerprint's loads: checks claim without the lock, and a reading from before
                // one of their claims judged its word with a stale now (a janitor descheduled over two windows took an
                // emptied bucket's debt for a wrapped idle word and reaped it; found by review, JanitorIdleClockTest).
                // A claim after the fingerprint is outside it: the entry is revived when its grace ends.
                final long t = ticker.nanos();
                if (!value.isTombstonedVolatile() && isIdle(value, t))
                {
                    value.tombstoneVolatile(t, sum);
                    done[0] = true;
                }
                return false;
            });
            tombstoned += done[0] ? 1 : 0;
        }
        for (final Orphan orphan : orphans)
        {
            final boolean[] done = {false};
            writeLocked(orphan.key, value ->
            {
                // unchanged since the scan, so no refusal since the orphan test: one between them (its client back,
                // the bucket created) was inside the fingerprint and was reaped with the counter (found by review,
                // OrphanBlockedRaceTest); a refusal from here on is outside it and revives the counter
                if (!value.isTombstonedVolatile() && value.stateSumVolatile() == orphan.stateSum)
                {
                    value.tombstoneVolatile(ticker.nanos(), orphan.stateSum);
                    done[0] = true;
                }
                return false;
            });
            tombstoned += done[0] ? 1 : 0;
        }
        header.addCounter(FileHeader.REAPED_OFFSET, reaped);
        header.addCounter(FileHeader.TOMBSTONED_OFFSET, tombstoned);
        header.addCounter(FileHeader.REVIVED_OFFSET, revived);
        return new PassResult(reaped, tombstoned, revived, frozenPid);
    }

    /** A {@code DASHBOARD_API} blocked counter and its fingerprint when the scan found it. */
    private record Orphan(byte[] key, long stateSum)
    {
    }

    /** A segment a stopped process holds is left for a later pass, never waited on for long. */
    private void writeLocked(final byte[] key, final WriteLockedAction action)
    {
        try
        {
            table.locked().withWriteLock(key, action, QuotaTable.CHECK_TIMEOUT_NANOS);
        }
        catch (final TableBusyException held)
        {
            // judged again on a later pass
        }
    }

    private boolean isIdle(final Entry value, final long now)
    {
        final long limit = value.limit();
        final long windowMs = value.windowMs();
        switch (value.kind())
        {
            case Entry.KIND_BUCKET:
                return limit < 1 || !TokenBucket.fits(limit, windowMs) ||
                    new TokenBucket(limit, windowMs).isFull(BucketWords.tatVolatile(value), now);
            case Entry.KIND_WINDOW:
            {
                // window numbers follow the policy's regimes, not the window the entry was created under
                final long current = policy.get().windowNumber(value.action(), Math.floorDiv(now, 1_000_000L));
                for (int shard = 0, n = ShardWords.count(value); shard < n; shard++)
                {
                    final long word = ShardWords.wordVolatile(value, shard);
                    if (!ShardedWindow.isOver(word, ShardWords.newestVolatile(value, shard), current))
                    {
                        return false;
                    }
                }
                return true;
            }
            case Entry.KIND_BLOCKED:
                return now - value.touchedVolatile() >= BLOCKED_IDLE_NANOS;
            case Entry.KIND_LEASE:
                // touched at each refill: a day without one drops the balance, under-admitting by at most it
                return LeaseWords.refillVolatile(value) == 0 && now - value.touchedVolatile() >= BLOCKED_IDLE_NANOS;
            default:
                return false;
        }
    }
}
