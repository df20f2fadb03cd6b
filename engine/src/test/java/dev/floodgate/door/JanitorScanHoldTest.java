package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.ManualTicker;
import dev.floodgate.TableBusyException;
import dev.floodgate.janitor.Janitor;
import dev.floodgate.store.Entry;
import dev.floodgate.store.ProcessRegistry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.Resolved;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A janitor pass visited each segment's entries under that segment's guard, so a cold check of a key of the segment it
 * was in (a new key's insert, a tombstone's revival) waited for the rest of the segment's visits, and was refused as
 * unreachable after 50 ms when the janitor thread was descheduled in there: on a loaded host the main source of
 * unreachable checks (NOTES, "What is left open"). The janitor now judges verified copies with no guard held and takes
 * the guard only for a census of the segment and for each decision. Fails before the change (the insert was refused
 * after 50 ms and counted among the guard's waits given up).
 *
 * <p>Deterministic: the scan's judgment of a window entry asks the policy supplier for the window number, and the
 * supplier here is the hook that makes the scan long: it stops the scan there, inside the window's segment, until a
 * check has inserted a new key into that very segment (bounded: 30 s), then lets the pass go on.
 */
@Timeout(60)
class JanitorScanHoldTest
{
    private static final long NOW = 1_000_000_000_000L;
    private static final long GRACE = 10_000_000_000L;
    private static final int SHARDS = 4;
    private static final long HOUR_MS = HookedPolicy.HOUR_MS;

    @TempDir
    Path dir;

    @Test
    void shouldAnswerAColdCheckOfTheSegmentTheJanitorIsJudging() throws Exception
    {
        final ManualTicker ticker = new ManualTicker(NOW);
        try (QuotaTable table = QuotaTable.open(dir.resolve("hold.map"), 1_000, SHARDS, false, NOW))
        {
            final ProcessRegistry registry = new ProcessRegistry(table.header(), table.locks(), GRACE / 2);
            final int slot = registry.register(table.owner(), NOW);
            final HookedPolicy hooked = new HookedPolicy(SHARDS);
            final PolicySnapshot policy = hooked.policy();
            final Janitor janitor = new Janitor(table, registry, ticker, GRACE, slot, hooked);

            // the window entry whose judgment is the hook (with a count: not idle), a full bucket of the same segment
            // the pass must still tombstone, and a new key of that segment for the cold check
            final TokenBucket bucket = new TokenBucket(10, HOUR_MS);
            final int segment = table.lookup().segmentOf(Entry.KIND_WINDOW, Action.PUBLISH, "holder");
            final String idle = keyIn(table, segment, "idle-");
            final String fresh = keyIn(table, segment, "fresh-");
            final Resolved window = table.lookup().resolve(Entry.KIND_WINDOW, Action.PUBLISH, "holder", 100, HOUR_MS,
                1, 0, NOW, null);
            final ActionRule rule = policy.rule(Action.PUBLISH);
            final long number = policy.windowNumber(Action.PUBLISH, NOW / 1_000_000L);
            assertEquals(1, ShardedWindow.used(ShardedWindow.tryClaim(window.entry(), 1, number, rule.previous,
                rule.current, 0, window.generation())), "the premise: the holder's window has a count");
            table.lookup().resolve(Entry.KIND_BUCKET, Action.AUTH, idle, 10, HOUR_MS, 1, bucket.fullWord(NOW), NOW,
                null);

            final AtomicReference<Resolved> inserted = new AtomicReference<>();
            final AtomicReference<Throwable> refused = new AtomicReference<>();
            final boolean[] hooked1 = {false};
            hooked.onNextCall(() ->
            {
                hooked1[0] = true;
                // the scan is inside the holder's segment: a check meets a key of that segment no one has seen yet
                final Thread check = new Thread(() ->
                {
                    try
                    {
                        inserted.set(table.lookup().resolve(Entry.KIND_BUCKET, Action.AUTH, fresh, 10, HOUR_MS, 1,
                            bucket.fullWord(NOW), NOW, null));
                    }
                    catch (final Throwable ex)
                    {
                        refused.set(ex);
                    }
                }, "cold-check");
                check.start();
                try
                {
                    check.join(30_000);
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
                assertFalse(check.isAlive(), "the cold check did not end within 30 s");
            });
            final long givenUpBefore = table.guard().timeouts();

            final Janitor.PassResult pass = janitor.runPass();

            assertTrue(hooked1[0], "the premise: the scan judged the holder's window");
            assertFalse(refused.get() instanceof TableBusyException, "the cold check of segment " + segment +
                " was refused as unreachable while the janitor judged that segment's entries: " + refused.get());
            assertNull(refused.get(), "the cold check failed");
            assertNotNull(inserted.get(), "the cold check was answered");
            assertEquals(givenUpBefore, table.guard().timeouts(), "no wait given up");
            assertTrue(pass.tombstoned() >= 1, "the pass tombstoned nothing");
            assertFalse(table.locked().isLive(table.hasher().key(idle, Action.AUTH, Entry.KIND_BUCKET)),
                "the pass still tombstones the full bucket of that segment");
            registry.unregister(table.owner());
        }
    }

    private static String keyIn(final QuotaTable table, final int segment, final String prefix)
    {
        for (int i = 0; ; i++)
        {
            final String id = prefix + i;
            if (table.lookup().segmentOf(Entry.KIND_BUCKET, Action.AUTH, id) == segment)
            {
                return id;
            }
        }
    }
}
