package dev.floodgate.janitor;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.ManualTicker;
import dev.floodgate.door.TokenBucket;
import dev.floodgate.store.Entry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.Resolved;
import dev.floodgate.testkit.DebuggedChild;
import dev.floodgate.testkit.IdleJanitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.floodgate.testkit.IdleJanitor.GRACE;
import static dev.floodgate.testkit.IdleJanitor.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The janitor tested idleness and only then took the fingerprint ({@code Entry.tombstoneVolatile}) and wrote the
 * tombstone. A lock-free check that landed between the two was in the fingerprint but not in the idle test: the
 * entry was tombstoned holding that check's count, and a grace period later the unchanged fingerprint let the
 * janitor remove it, count and all. The fingerprint is now taken before the idle test, so such a write revives the
 * entry. Found by review; fails before the fix.
 *
 * <p>Deterministic: the janitor runs in a child JVM under the debugger (JDI), stopped by a breakpoint at the entry
 * of {@code Entry.tombstoneVolatile}, which the janitor calls after its idle test with the segment's write lock
 * held; this JVM's warm check (lock-free, as every warm check) charges the bucket there, then the janitor resumes.
 */
@Timeout(120)
class JanitorIdleRaceTest
{
    private static final long HOUR_MS = 3_600_000L;
    private static final int SHARDS = 4;
    private static final long CAPACITY = 1_000;

    @TempDir
    Path dir;

    @Test
    void shouldNeverReapABucketACheckChargedBetweenTheIdleTestAndTheTombstone() throws Exception
    {
        final Path file = dir.resolve("idle.map");
        final TokenBucket bucket = new TokenBucket(1, HOUR_MS); // one per hour
        final ManualTicker ticker = new ManualTicker(NOW);
        try (QuotaTable table = QuotaTable.open(file, CAPACITY, SHARDS, false, NOW))
        {
            final Resolved slot = table.lookup().resolve(Entry.KIND_BUCKET, Action.PUBLISH, "alice", 1, HOUR_MS, 1,
                bucket.fullWord(NOW), NOW, null);
            final long[] charged = {-99};
            final String log;
            try (DebuggedChild child = IdleJanitor.startDebugged(file, CAPACITY, SHARDS))
            {
                final int[] hits = {0};
                // the entry of Entry.tombstoneVolatile, which the janitor calls after its idle test; nothing else in
                // the child tombstones
                child.runStoppingAtEntry(Entry.class.getName(), "tombstoneVolatile", hit ->
                {
                    hits[0]++;
                    // the janitor judged the full bucket idle and holds the write lock; a warm check (generation
                    // still the one it cached, no lock) charges the bucket now
                    charged[0] = bucket.tryAcquire(slot.entry(), ticker, 1, slot.generation());
                });
                assertEquals(1, hits[0], "the janitor tombstoned the one bucket once");
                log = child.transcript();
            }
            assertTrue(log.contains("DONE"), "the child janitor's passes: " + log);
            assertEquals(Floodgate.ADMITTED, charged[0], "the first check of the hour is admitted");

            // the next check, 1 s after the janitor's second pass: well within the hour
            final long later = NOW + GRACE + 1_000_000_000L;
            ticker.set(later);
            final Resolved next = table.lookup().resolve(Entry.KIND_BUCKET, Action.PUBLISH, "alice", 1, HOUR_MS, 1,
                bucket.fullWord(later), later, null);
            final long second = bucket.tryAcquire(next.entry(), ticker, 1, next.generation());
            assertTrue(second != Floodgate.ADMITTED, "a limit of 1 per hour admitted a second check " +
                (GRACE / 1_000_000_000L + 1) + " s after the first: the janitor reaped the bucket holding the first " +
                "check's charge. Child janitor: " + log.replace('\n', ' '));
        }
    }
}
