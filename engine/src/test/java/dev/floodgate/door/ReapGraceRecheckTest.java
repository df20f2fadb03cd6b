package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.ManualTicker;
import dev.floodgate.janitor.Janitor;
import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryBytes;
import dev.floodgate.store.ProcessRegistry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.Resolved;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The janitor decides that a tombstone is old enough in its scan and removes it later under the write lock, where
 * it re-checked only "still a tombstone, fingerprint unchanged", not the tombstone's age. When, between the two, a
 * check revived the entry and another janitor (every JVM runs one; a reset does the same) tombstoned it afresh, the
 * first janitor removed a tombstone 0 ns old: no grace period protected the check that revived it, whose write then
 * landed on removed memory. Found by review; fails before the fix (the age is re-checked under the lock now).
 *
 * <p>Deterministic: the policy supplier the scan calls for a live window entry (in a later segment than the
 * victim) is the hook between janitor A's scan and its removals, and the paused check is held right after its
 * generation test ({@code EntryBytes.pausedAfterGenerationTest}: a thread descheduled between two adjacent
 * instructions, the moment the grace period exists for; it was held in a clock read there, before the clock moved
 * ahead of the test).
 */
@Timeout(60)
class ReapGraceRecheckTest
{
    private static final long NOW = 1_000_000_000_000L;
    private static final long GRACE = 10_000_000_000L;
    private static final int SHARDS = 4;
    private static final long HOUR_MS = HookedPolicy.HOUR_MS;

    @TempDir
    Path dir;

    @Test
    void shouldNotRemoveATombstoneYoungerThanTheGracePeriod() throws Exception
    {
        final ManualTicker ticker = new ManualTicker(NOW);
        try (QuotaTable table = QuotaTable.open(dir.resolve("grace.map"), 1_000, SHARDS, false, NOW))
        {
            final ProcessRegistry registry = new ProcessRegistry(table.header(), table.locks(), GRACE / 2);
            final int slot = registry.register(table.owner(), NOW);
            final HookedPolicy hooked = new HookedPolicy(SHARDS);
            final PolicySnapshot policy = hooked.policy();
            final Janitor janitorA = new Janitor(table, registry, ticker, GRACE, slot, hooked);
            final Janitor janitorB = new Janitor(table, registry, ticker, GRACE, slot, () -> policy);

            // the victim: a bucket of 1 per hour; a window entry with a count, in a later segment, keeps the scan's
            // policy call (the hook) after the victim's segment
            final TokenBucket bucket = new TokenBucket(1, HOUR_MS);
            String victim = null;
            String holder = null;
            for (int i = 0; victim == null; i++)
            {
                final String v = "victim-" + i;
                final int vs = table.lookup().segmentOf(Entry.KIND_BUCKET, Action.PUBLISH, v);
                for (int j = 0; j < 200 && victim == null; j++)
                {
                    final String h = "holder-" + j;
                    if (table.lookup().segmentOf(Entry.KIND_WINDOW, Action.PUBLISH, h) > vs)
                    {
                        victim = v;
                        holder = h;
                    }
                }
            }
            final String id = victim;
            table.lookup().resolve(Entry.KIND_BUCKET, Action.PUBLISH, id, 1, HOUR_MS, 1, bucket.fullWord(NOW), NOW,
                null);
            final Resolved window = table.lookup().resolve(Entry.KIND_WINDOW, Action.PUBLISH, holder, 100, HOUR_MS,
                1, 0, NOW, null);
            final ActionRule rule = policy.rule(Action.PUBLISH);
            final long number = policy.windowNumber(Action.PUBLISH, NOW / 1_000_000L);
            assertEquals(1, ShardedWindow.used(ShardedWindow.tryClaim(window.entry(), 1, number, rule.previous,
                rule.current, 0, window.generation())), "the premise: the holder's window has a count");

            // pass 1: the full bucket is idle and tombstoned; the window is not idle
            assertEquals(1, janitorA.runPass().tombstoned());
            ticker.advanceNanos(GRACE); // the tombstone is a grace period old: pass 2's scan lists it as expired

            // what happens while pass 2 of janitor A is between its scan and its removals:
            final CountDownLatch checkPaused = new CountDownLatch(1);
            final CountDownLatch resume = new CountDownLatch(1);
            final AtomicLong firstCheck = new AtomicLong(-99);
            final AtomicLong revivedGeneration = new AtomicLong();
            final Runnable pause = () ->
            {
                checkPaused.countDown(); // after the generation test, before the compare-and-set
                await(resume);
            };
            final Thread check = new Thread(() ->
            {
                try
                {
                    // a check meets the tombstone and revives it (the cold path), then charges it
                    final long now = ticker.nanos();
                    final Resolved revived = table.lookup().resolve(Entry.KIND_BUCKET, Action.PUBLISH, id, 1,
                        HOUR_MS, 1, bucket.fullWord(now), now, null);
                    revivedGeneration.set(revived.generation());
                    firstCheck.set(bucket.tryAcquire(EntryBytes.pausedAfterGenerationTest(revived.entry(), pause),
                        ticker, 1, revived.generation()));
                }
                catch (final Exception ex)
                {
                    throw new IllegalStateException(ex);
                }
            });
            final int[] tombstonedByB = {-1};
            hooked.onNextCall(() ->
            {
                check.start();
                await(checkPaused);
                // another JVM's janitor: the revived bucket is full, so idle; it tombstones it afresh (janitor A
                // judges the holder's window from a copy, holding no guard)
                final Thread other = new Thread(() -> tombstonedByB[0] = janitorB.runPass().tombstoned());
                other.start();
                join(other);
            });
            final Janitor.PassResult pass2 = janitorA.runPass();
            assertEquals(1, tombstonedByB[0], "the premise: janitor B tombstoned the revived bucket");
            assertNotEquals(0, revivedGeneration.get(), "the premise: the check revived the bucket");

            resume.countDown();
            join(check);
            assertEquals(Floodgate.ADMITTED, firstCheck.get(), "the first check of the hour is admitted");

            // the next check within the hour, through the table as any check goes
            final long later = ticker.nanos() + 1_000_000_000L;
            ticker.set(later);
            final Resolved next = table.lookup().resolve(Entry.KIND_BUCKET, Action.PUBLISH, id, 1, HOUR_MS, 1,
                bucket.fullWord(later), later, null);
            final long second = bucket.tryAcquire(next.entry(), ticker, 1, next.generation());

            assertEquals(0, pass2.reaped(), "janitor A removed a tombstone janitor B had just written (0 ns old, " +
                "grace " + GRACE + " ns), under a check that had revived it");
            assertTrue(second != Floodgate.ADMITTED, "a limit of 1 per hour admitted a second check 1 s after the " +
                "first: the first check's charge was written to a removed entry");
            registry.unregister(table.owner());
        }
    }

    private static void await(final CountDownLatch latch)
    {
        try
        {
            latch.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static void join(final Thread thread)
    {
        try
        {
            thread.join();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
