package dev.floodgate.janitor;

import dev.floodgate.Action;
import dev.floodgate.door.TokenBucket;
import dev.floodgate.store.Entry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.Resolved;
import dev.floodgate.store.ShardWords;
import dev.floodgate.testkit.DebuggedChild;
import dev.floodgate.testkit.IdleJanitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.floodgate.testkit.IdleJanitor.NOW;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The janitor judged a {@code DASHBOARD_API} blocked counter orphaned (no bucket, no window) and then tombstoned it
 * under its lock with a fingerprint taken there, without judging it again: a bucket created and a refusal counted
 * between the two were inside the fingerprint, and a grace period later the counter was removed, refusal and all,
 * while its bucket lived. Found by review; fails before the fix.
 *
 * <p>Deterministic: the janitor runs in a child JVM under the debugger, stopped at the entry of
 * {@code Janitor.writeLocked} (after the orphan test, before the counter's lock); this JVM creates the bucket and
 * counts a refusal there (lock-free, as a warm refusal), then the janitor resumes.
 */
@Timeout(120)
class OrphanBlockedRaceTest
{
    private static final long MINUTE_MS = 60_000L;
    private static final int SHARDS = 4;
    private static final long CAPACITY = 1_000;

    @TempDir
    Path dir;

    @Test
    void shouldNotReapABlockedCounterRefusedBetweenTheOrphanTestAndTheTombstone() throws Exception
    {
        final Path file = dir.resolve("orphan.map");
        final Action action = Action.DASHBOARD_API;
        final TokenBucket bucket = new TokenBucket(1, MINUTE_MS);
        try (QuotaTable table = QuotaTable.open(file, CAPACITY, SHARDS, false, NOW))
        {
            // a counter whose bucket the janitor reaped: an orphan, rightly judged so at the scan
            final Resolved counter = table.lookup().resolve(Entry.KIND_BLOCKED, action, "alice", 0, 0, 0, 0, NOW,
                null);
            assertTrue(ShardWords.addRefusalIfCurrent(counter.entry(), counter.generation(), 0));
            final int[] hits = {0};
            final String log;
            try (DebuggedChild child = IdleJanitor.startDebugged(file, CAPACITY, SHARDS))
            {
                child.runStoppingAtEntry(Janitor.class.getName(), "writeLocked", hit ->
                {
                    if (hits[0]++ == 0)
                    {
                        // first pass, about to tombstone the orphan: a client comes back, its bucket is created and
                        // a refusal counted (a cold refusal creates the bucket before it counts)
                        table.lookup().resolve(Entry.KIND_BUCKET, action, "alice", 1, MINUTE_MS, 1,
                            bucket.fullWord(NOW), NOW, null);
                        assertTrue(ShardWords.addRefusalIfCurrent(counter.entry(), counter.generation(), 1),
                            "the counter was live at the breakpoint");
                    }
                });
                log = child.transcript();
            }
            assertTrue(log.contains("DONE"), "the child janitor's passes: " + log);
            assertTrue(hits[0] >= 1, "the janitor judged the counter orphaned: " + log);
            final Resolved after = table.lookup().peek(Entry.KIND_BLOCKED, action, "alice");
            assertNotNull(after, "the janitor removed a blocked counter whose bucket lives, with a refusal counted " +
                "after its orphan test. Child janitor: " + log.replace('\n', ' '));
            assertEquals(2, ShardWords.blockedCountVolatile(after.entry()), "both refusals counted");
        }
    }
}
