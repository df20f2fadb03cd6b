package dev.floodgate.store;

/**
 * What {@code floodgate stats} must show of the file's entry count: the count set apart from the segments', as a
 * process killed between an insert's or a removal's two counts leaves it (set here directly;
 * {@code KilledBetweenCountsTest} makes it by such a kill), and a repair of it given up. Public for the tools' tests.
 */
public final class EntryTotals
{
    private EntryTotals()
    {
    }

    /**
     * Moves the file's count alone, as a process killed after moving a segment's count and before the file's leaves
     * it: by -1 for an insert (the segments then count one more than the file), by +1 for a removal.
     *
     * @param table a table no other process is inserting into or removing from.
     * @param delta what to add to the file's count.
     */
    public static void moveFileCount(final QuotaTable table, final long delta)
    {
        table.header().addCounter(FileHeader.ENTRY_COUNT_OFFSET, delta);
    }

    /**
     * Runs the janitor's repair of the file's count at the end of two passes while this process holds the last
     * segment's guard, as a live process stopped inside an operation would: the second pass's repair, due, gives up.
     *
     * @param table a table whose file count differs from its segments'; no guard of it held by this thread.
     * @return whether the repair reported doing its job (false: given up).
     */
    public static boolean repairWithTheLastSegmentHeld(final QuotaTable table)
    {
        final EntryTotalRepair repair = table.scans().totalRepair();
        repair.repairIfDrifted(); // a first pass's end: the difference seen once, nothing done
        final int last = table.guard().segments() - 1;
        if (!table.guard().acquireSegment(last, QuotaTable.CHECK_TIMEOUT_NANOS))
        {
            throw new AssertionError("segment " + last + "'s guard was not free");
        }
        try
        {
            return repair.repairIfDrifted();
        }
        finally
        {
            table.guard().releaseSegment(last);
        }
    }
}
