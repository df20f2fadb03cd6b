package dev.floodgate.store;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Brings the file's entry count ({@link FileHeader#ENTRY_COUNT_OFFSET}, which an insert tests against the capacity)
 * back to the sum of the segments' counts ({@link GuardRegion#segmentEntries}) after a process died between the two.
 *
 * <p>An insert, a removal and a scan's recount move a segment's count, then the file's, under that segment's guard.
 * A process killed between the two leaves the file's count off by one, and no single segment shows it: the scan's
 * recount compares a segment's entries with the segment's own count, which is right. The file's count is shared by
 * every segment and moved by atomic adds that record nothing of who made them, so the difference can only be taken
 * where no operation is between its two counts anywhere: with every segment's guard held at once. That holds up
 * every cold check of the table while it lasts: a compare-and-set and a load per segment (16 segments at the
 * default capacity of 100,000, 256 at 1,000,000), microseconds, which checks wait out; they give up (50 ms) only if
 * this thread is descheduled, paused by a GC or stopped in it, and then every segment's cold checks do: the node-wide
 * stall a stopped process must never cause. So it runs only when a difference is there: the janitor's scan compares
 * the segments' sum with the file's count without any guard at the end of each pass ({@link #repairIfDrifted}), and
 * holds every guard only when the same difference is seen at the end of two passes in a row. An operation between its
 * two counts, or one that ends while the sum is read (it is no snapshot), makes an unguarded difference for a
 * moment, and it is finished by the next pass; a process that died there leaves the same difference pass after
 * pass, whenever it died (before this process opened the file, or under an engine version without the repair). So the table-wide hold follows a crash inside a guard, and nothing else
 * (but for the rare pass that meets the same in-flight difference twice, which only costs the hold).
 *
 * <p>Thread-safe. The guards are taken in segment order, so two repairs (two processes' janitors) cannot deadlock;
 * every other holder holds one segment's guard and waits for nothing but the allocation guard, whose holder waits
 * for no segment. They are all given up after {@link #BUDGET_NANOS}: a live process holding a segment longer (stopped)
 * does not hold up the rest of the table behind this repair, which is tried again on the next pass. A repair given
 * up is counted in the file ({@link FileHeader#ENTRY_REPAIRS_GIVEN_UP_OFFSET}), not among the guard's timeouts: those
 * an operator reads as operations that could not reach a segment, and a repair that lets go reached nothing anyone
 * waited for; counted apart, a difference that outlasts its two passes says why (repairs given up, or passes that
 * skipped a held segment and so tried none).
 */
final class EntryTotalRepair
{
    /** How long all the guards may take to get; well below a check's wait ({@link QuotaTable#CHECK_TIMEOUT_NANOS}). */
    static final long BUDGET_NANOS = QuotaTable.CHECK_TIMEOUT_NANOS / 10;
    private static final System.Logger LOG = System.getLogger("dev.floodgate");

    private final Path file;
    private final TableGuard guard;
    private final GuardRegion region;
    private final FileHeader header;
    /** The segments' sum less the file's count, unguarded, at the end of the last pass; 0 when none was seen. */
    private final AtomicLong lastDrift = new AtomicLong();

    EntryTotalRepair(final Path file, final TableGuard guard, final FileHeader header)
    {
        this.file = file;
        this.guard = guard;
        this.region = guard.region();
        this.header = header;
    }

    /**
     * Repairs the file's count when the segments' sum differed from it, by the same amount, at the end of this pass
     * and the last one (the class comment says why twice). Call with no guard held, at the end of a pass.
     *
     * @return false when a repair was due and a segment stayed held for {@link #BUDGET_NANOS} (tried again at the
     * next pass); true otherwise.
     */
    boolean repairIfDrifted()
    {
        final long drift = unguardedDrift();
        final long before = lastDrift.getAndSet(drift);
        if (drift == 0 || drift != before)
        {
            return true;
        }
        if (!repairNow())
        {
            return false;
        }
        lastDrift.compareAndSet(drift, 0);
        return true;
    }

    /** @return the segments' sum less the file's count, each loaded volatile with no guard held: not a snapshot. */
    long unguardedDrift()
    {
        long sum = 0;
        for (int segment = 0, segments = guard.segments(); segment < segments; segment++)
        {
            sum += region.segmentEntriesVolatile(segment);
        }
        return sum - header.counterVolatile(FileHeader.ENTRY_COUNT_OFFSET);
    }

    /**
     * Sets the file's count to the segments' sum, under every segment's guard at once. Call with no guard held.
     *
     * @return false when a segment stayed held for {@link #BUDGET_NANOS}: nothing was done (counted in
     * {@link FileHeader#ENTRY_REPAIRS_GIVEN_UP_OFFSET}).
     */
    boolean repairNow()
    {
        final int segments = guard.segments();
        final long start = System.nanoTime();
        int held = 0;
        long before = 0;
        long sum = 0;
        try
        {
            while (held < segments)
            {
                final long left = BUDGET_NANOS - (System.nanoTime() - start);
                if (left <= 0 || !guard.acquireSegmentUncounted(held, left))
                {
                    header.addCounter(FileHeader.ENTRY_REPAIRS_GIVEN_UP_OFFSET, 1);
                    return false;
                }
                held++;
            }
            // every count moves under a segment's guard: nothing moves either count now
            for (int segment = 0; segment < segments; segment++)
            {
                sum += region.segmentEntries(segment);
            }
            before = header.counterVolatile(FileHeader.ENTRY_COUNT_OFFSET);
            if (sum != before)
            {
                header.addCounter(FileHeader.ENTRY_COUNT_OFFSET, sum - before);
            }
        }
        finally
        {
            while (held > 0)
            {
                guard.releaseSegment(--held);
            }
        }
        if (sum != before)
        {
            LOG.log(System.Logger.Level.WARNING, "{0}: the file''s entry count was {1}, its segments hold {2} (a " +
                "process died between the two counts); repaired", file, before, sum);
        }
        return true;
    }
}
