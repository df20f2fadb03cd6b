package dev.floodgate.store;

import dev.floodgate.Action;
import dev.floodgate.TableBusyException;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.DebuggedChild;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.floodgate.testkit.DebuggedChild.caller;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The repair of the file's entry count ({@link EntryTotalRepair}) runs while other JVMs insert and remove entries:
 * each of them moves a segment's count, then the file's, and one caught between the two must not be taken for a
 * count lost by a crash, or its move is counted twice for good. Taken under every segment's guard at once, the
 * difference is exact.
 *
 * <p>Deterministic, the first: a child JVM under the debugger is stopped (alive) between its insert's two counts,
 * and the repair runs then. The same repair taking no guard, tried by hand, added the insert to the file's count, and
 * the child's own add made it 2 for 1 entry. The second runs repairs among two JVMs' inserts and removals, for the
 * figure NOTES.md quotes (how long a repair holds up the table), and as a soak: with no guard taken, it left the file
 * counting 517 of 512 entries once in three tries, so it is no proof on its own.
 */
@Timeout(180)
class EntryTotalRepairRaceTest
{
    private static final long CAPACITY = 100_000;
    private static final int KEYS = 512;
    private static final int REPAIRS = 100_000;
    /** Inserts (each takes a generation) the churners make, at least, while the repairs run. */
    private static final long CHURN = 1_000;

    @TempDir
    Path dir;

    /**
     * Child: inserts a key and removes the one inserted {@value #KEYS}/2 keys before, over and over, until its stop
     * file appears.
     *
     * <pre>args: file stopFile</pre>
     */
    public static final class Churner
    {
        public static void main(final String[] args) throws TableFullException
        {
            final Path stop = Path.of(args[1]);
            final String pid = Long.toString(ProcessHandle.current().pid());
            try (QuotaTable table = QuotaTable.open(Path.of(args[0]), CAPACITY, 2, false, System.nanoTime()))
            {
                System.out.println("READY");
                System.out.flush();
                long i = 0;
                while (i % 256 != 0 || !Files.exists(stop))
                {
                    try
                    {
                        table.lookup().resolve(Entry.KIND_BUCKET, Action.AUTH, pid + "-" + i % KEYS, 10, 60_000, 1,
                            0, System.nanoTime(), null);
                    }
                    catch (final TableBusyException descheduled)
                    {
                        // a repair's guards held past a check's wait on a loaded host: a check is refused, no count
                        // moves
                    }
                    table.locked().withWriteLock(table.hasher().key(pid + "-" + (i + KEYS / 2) % KEYS, Action.AUTH,
                        Entry.KIND_BUCKET), entry -> true);
                    i++;
                }
                System.out.println("RESULT " + i);
            }
        }
    }

    /** Child: inserts one key, where the test stops it. <pre>args: file</pre> */
    public static final class InsertOne
    {
        public static void main(final String[] args) throws TableFullException
        {
            try (QuotaTable table = QuotaTable.open(Path.of(args[0]), CAPACITY, 2, false, System.nanoTime()))
            {
                table.lookup().resolve(Entry.KIND_BUCKET, Action.AUTH, "one", 10, 60_000, 1, 0, System.nanoTime(),
                    null);
                System.out.println("INSERTED");
            }
        }
    }

    @Test
    void shouldNotCountAnInsertTwiceWhenRepairedBetweenItsTwoCounts() throws Exception
    {
        final Path file = dir.resolve("between.map");
        try (QuotaTable table = QuotaTable.open(file, CAPACITY, 2, false, System.nanoTime());
             DebuggedChild child = DebuggedChild.start(InsertOne.class, List.of(file.toString())))
        {
            // the whole child stopped at the file's count, its segment's moved: an insert between its two counts
            child.runUntilEntry(FileHeader.class.getName(), "addCounter", hit -> caller(hit, 1).equals("insert"));
            final boolean repaired = table.scans().totalRepair().repairNow();
            child.detach();
            assertTrue(child.process().waitFor(60, TimeUnit.SECONDS), "the child ended");
            child.awaitOutput();
            assertTrue(child.transcript().contains("INSERTED"), child.transcript());
            assertEquals(1, table.header().counterVolatile(FileHeader.ENTRY_COUNT_OFFSET), "the file's count " +
                "after one insert, repaired between its two counts");
            assertFalse(repaired, "a repair with the inserting segment's guard held by a live process");
            assertTrue(table.scans().totalRepair().repairNow(), "a repair with no guard held");
            assertEquals(1, table.header().counterVolatile(FileHeader.ENTRY_COUNT_OFFSET));
        }
    }

    @Test
    void shouldKeepTheFileCountExactWhenRepairedAmongOtherJvmsInsertsAndRemovals() throws Exception
    {
        final Path file = dir.resolve("churn.map");
        final Path stop = dir.resolve("stop");
        final List<ChildJvm> churners = new ArrayList<>();
        try (QuotaTable table = QuotaTable.open(file, CAPACITY, 2, false, System.nanoTime()))
        {
            final EntryTotalRepair repair = table.scans().totalRepair();
            try
            {
                for (int i = 0; i < 2; i++)
                {
                    churners.add(ChildJvm.start(Churner.class, file.toString(), stop.toString()));
                }
                for (final ChildJvm churner : churners)
                {
                    churner.awaitLine("READY", 120);
                }
                final long start = table.header().counterVolatile(FileHeader.GENERATION_COUNTER_OFFSET);
                int repairs = 0;
                int givenUp = 0;
                long repairNanos = 0;
                long longest = 0;
                while (repairs < REPAIRS ||
                    table.header().counterVolatile(FileHeader.GENERATION_COUNTER_OFFSET) - start < CHURN)
                {
                    final long began = System.nanoTime();
                    final boolean done = repair.repairNow();
                    final long took = System.nanoTime() - began;
                    repairs += done ? 1 : 0;
                    givenUp += done ? 0 : 1;
                    repairNanos += done ? took : 0;
                    longest = Math.max(longest, done ? took : 0);
                }
                // the figure NOTES.md quotes: how long a repair holds up the table's cold checks
                System.out.printf("repairs under churn: %d over %d segments, mean %.1f us, longest %.1f us, %d given " +
                    "up%n", repairs, table.guard().segments(), repairNanos / 1e3 / repairs, longest / 1e3, givenUp);
                Files.createFile(stop);
                for (final ChildJvm churner : churners)
                {
                    assertEquals(0, churner.awaitExit(60), churner.transcript());
                }
            }
            finally
            {
                churners.forEach(ChildJvm::close);
            }
            long held = -1; // the file's own record is no entry
            for (final long segment : table.scans().segmentCounts())
            {
                held += segment;
            }
            assertTrue(held > 0, "the churners left entries");
            assertEquals(held, table.header().counterVolatile(FileHeader.ENTRY_COUNT_OFFSET),
                "the file's entry count after repairs among other JVMs' inserts and removals");
        }
    }
}
