package dev.floodgate.tools.table;

import dev.floodgate.store.QuotaTable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Copies every entry of a table. {@link QuotaTable#forEachEntry} holds one segment's update lock while it
 * copies that segment's entries; the visitor here only decodes a few words into a record, so the lock is held
 * for the copy and nothing else. Checks on warm keys take no lock and are never blocked; inserts into the
 * segment being copied wait for at most that copy.
 *
 * <p>Chronicle Map's segment locks live in the shared file and are not released when their owner dies, so
 * a reader killed by Ctrl-C in the middle of a copy would leave writers of that segment waiting until their
 * lock timeout. A shutdown hook therefore waits (bounded) for a copy in progress to finish and stops new
 * ones from starting before the JVM exits.
 *
 * <p>Not a snapshot across segments: entries in different segments are copied at slightly different times.
 */
public final class TableSnapshot
{
    private static final ReentrantLock COPYING = new ReentrantLock();

    static
    {
        Runtime.getRuntime().addShutdownHook(new Thread(TableSnapshot::holdForShutdown, "floodgate-snapshot-guard"));
    }

    private TableSnapshot()
    {
    }

    /**
     * @param table an open table.
     * @return copies of its entries, tombstoned ones included (callers filter).
     */
    public static List<EntrySnapshot> entries(final QuotaTable table)
    {
        final List<EntrySnapshot> entries = new ArrayList<>();
        COPYING.lock();
        try
        {
            table.forEachEntry((key, value) ->
            {
                final EntrySnapshot entry = EntrySnapshot.of(value);
                if (entry != null) // an unknown kind or action byte: a newer format's entry, not ours to show
                {
                    entries.add(entry);
                }
            });
        }
        finally
        {
            COPYING.unlock();
        }
        return Collections.unmodifiableList(entries);
    }

    private static void holdForShutdown()
    {
        try
        {
            // Taken and never released: the JVM is exiting, and no copy may start after this.
            COPYING.tryLock(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }
}
