package dev.floodgate;

import dev.floodgate.door.TokenBucket;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.store.Entry;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.DebuggedChild;
import dev.floodgate.testkit.IdleJanitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.floodgate.testkit.DebuggedChild.caller;
import static dev.floodgate.testkit.IdleJanitor.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process killed between a segment's entry count and the file's (an insert's, a removal's) once left the file's
 * count off by one for good: the janitor's scan compared what a segment holds with the segment's own count only, and
 * that one was right. The file's count is what an insert tests against the capacity, so a node that crashed inside
 * inserts admitted new keys past its capacity, and one that crashed inside removals refused them (table full) early.
 * Found by review; both tests fail before the fix.
 *
 * <p>Deterministic: the child runs under the debugger and is SIGKILLed at the entry of the file's count update
 * ({@code FileHeader.addCounter}) from an insert ({@code EntryResolver.insert}) or a removal
 * ({@code EntryLocks.withWriteLock}, the janitor's reap): the segment's count is moved, the file's is not. Then two
 * janitor passes here (the repair waits for a difference seen at two passes' ends), and the table is filled to its
 * capacity. The read-only reader's count is checked before them too: it sums the segments' counts, since it repairs nothing.
 * What an operator sees of it is checked on the way: the reader and {@link Stats} show the file's own count beside the
 * segments', one apart after the kill (the segments one ahead after an insert, behind after a removal), still after the
 * first pass (the repair waits for a second) and equal after the second.
 */
@Timeout(120)
class KilledBetweenCountsTest
{
    private static final long CAPACITY = 64;
    private static final long LIMIT = 1_000;
    private static final long WINDOW_MS = 60_000;
    /** Buckets the removal's child finds idle, tombstones in its first pass and reaps in its second. */
    private static final int IDLE = 8;

    @TempDir
    Path dir;

    static FloodgateConfig config(final Path file, final Ticker ticker)
    {
        return FloodgateConfig.builder().file(file).capacity(CAPACITY).limit(Action.AUTH, LIMIT, WINDOW_MS)
            .ticker(ticker).build();
    }

    /** Child: opens the table and checks one new key, whose insert it is killed in. */
    public static final class InsertOne
    {
        public static void main(final String[] args)
        {
            try (Floodgate gate = Floodgate.open(config(Path.of(args[0]), new ManualTicker(NOW))))
            {
                System.out.println("INSERTING");
                gate.checkLimit("victim", Action.AUTH);
                System.out.println("INSERTED");
            }
        }
    }

    @Test
    void shouldRefuseANewKeyPastCapacityAfterAnInsertKilledBetweenItsCounts() throws Exception
    {
        final Path file = dir.resolve("insert.map");
        try (DebuggedChild child = DebuggedChild.start(InsertOne.class, List.of(file.toString())))
        {
            child.runUntilEntry(FileHeader.class.getName(), "addCounter",
                hit -> caller(hit, 1).equals("insert"));
            killAndWait(child);
            assertTrue(child.transcript().contains("INSERTING") && !child.transcript().contains("INSERTED"),
                "killed inside the check's insert: " + child.transcript());
        }
        assertFillsExactlyToCapacity(file, "an insert", 1);
    }

    @Test
    void shouldAdmitNewKeysUpToCapacityAfterARemovalKilledBetweenItsCounts() throws Exception
    {
        final Path file = dir.resolve("removal.map");
        Floodgate.open(config(file, new ManualTicker(NOW))).close(); // made as a node makes it, with its policy
        final int shards;
        try (QuotaTable table = QuotaTable.open(file, CAPACITY, 1, false, NOW))
        {
            shards = table.shards();
            final TokenBucket bucket = new TokenBucket(LIMIT, WINDOW_MS);
            for (int i = 0; i < IDLE; i++)
            {
                // full buckets: idle at the janitor's first pass
                table.lookup().resolve(Entry.KIND_BUCKET, Action.AUTH, "idle-" + i, LIMIT, WINDOW_MS, 1,
                    bucket.fullWord(NOW), NOW, null);
            }
        }
        try (DebuggedChild child = IdleJanitor.startDebugged(file, CAPACITY, shards))
        {
            child.runUntilEntry(FileHeader.class.getName(), "addCounter",
                hit -> caller(hit, 1).equals("withWriteLock"));
            killAndWait(child);
            assertTrue(child.transcript().contains("PASS1") && !child.transcript().contains("PASS2"),
                "killed inside the second pass's first reap: " + child.transcript());
        }
        assertFillsExactlyToCapacity(file, "a removal", -1);
    }

    private static void killAndWait(final DebuggedChild child) throws InterruptedException
    {
        child.kill();
        assertTrue(child.process().waitFor(30, TimeUnit.SECONDS), "the child died");
        child.awaitOutput();
    }

    /**
     * Two janitor passes after the kill, then new keys until the table holds its capacity: each is admitted, and the
     * next is refused as the table's full.
     *
     * @param difference the segments' count less the file's that the kill left.
     */
    private static void assertFillsExactlyToCapacity(final Path file, final String killedIn, final long difference)
    {
        final String killed = "after a process was killed inside " + killedIn;
        try (FloodgateReader reader = FloodgateReader.open(file))
        {
            // the read-only reader (floodgate stats' library) repairs nothing: it counts right before any janitor ran,
            // and shows the file's own count apart
            final long entries = reader.entries().size();
            assertEquals(entries, reader.counters().entryCount(), "the reader's entry count " + killed +
                ", before any janitor pass");
            assertEquals(entries - difference, reader.counters().fileEntryCount(), "the file's count " + killed);
            assertEquals(difference, reader.counters().entryCountDifference(), killed);
        }
        // the tombstones the removal's child left are 0 s old at NOW: this node's pass reaps none of them (and its
        // scheduled passes come after the default 5 minutes: none during the test)
        try (Floodgate gate = Floodgate.open(config(file, new ManualTicker(NOW))))
        {
            assertEquals(difference, gate.stats().entryCountDifference(), "Stats " + killed + ": " + gate.stats());
            gate.cleanup(); // takes the dead child's segment guard over and scans every segment
            assertEquals(difference, gate.stats().entryCountDifference(), "Stats after one janitor pass: the repair " +
                "waits for the same difference at a second pass's end");
            gate.cleanup(); // the same difference at a second pass's end: a crash, not an operation in flight
            final Stats repaired = gate.stats();
            assertEquals(0, repaired.entryCountDifference(), "Stats after the second pass: " + repaired);
            assertEquals(repaired.segmentEntryCount(), repaired.fileEntryCount());
            assertEquals(repaired.tombstoned() + repaired.entries() + repaired.cluster().leasesHeld(),
                repaired.segmentEntryCount(), "entries in the segments: every entry, tombstoned included");
            final long held;
            final long counted;
            try (FloodgateReader reader = FloodgateReader.open(file))
            {
                held = reader.entries().size();
                counted = reader.counters().entryCount();
            }
            int admitted = 0;
            for (long i = held; i < CAPACITY; i++)
            {
                admitted += gate.checkLimit("new-" + i, Action.AUTH) == Floodgate.ADMITTED ? 1 : 0;
            }
            final long past = gate.checkLimit("one-too-many", Action.AUTH);
            final String what = "a process killed inside " + killedIn + ", then two janitor passes: the table holds " +
                held + " entries (the reader counts " + counted + "); of the " + (CAPACITY - held) + " new keys " +
                "that fill it to its capacity of " + CAPACITY + ", " + admitted + " were admitted, and the next one " +
                "was " + (past == Floodgate.ADMITTED ? "admitted" : "refused");
            assertEquals(CAPACITY - held, admitted, what);
            assertNotEquals(Floodgate.ADMITTED, past, what);
            assertEquals(1, gate.stats().tableFull().get(Action.AUTH), what);
            assertEquals(held, counted, what);
        }
    }
}
