package dev.floodgate.store;

import dev.floodgate.Action;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A closing table waits for its operations in flight, and the janitor's scan is one operation over every segment,
 * each waited for 50 ms when a live process holds it. So a close during a scan waited for the rest of the scan:
 * with a process stopped while it held the guards (the entry-count repair takes every one at once), 50 ms a segment,
 * 12.8 s on a table of a million entries (256 segments), past the close's own bound (8 s), after which the closing
 * process kept its slot until its JVM exited and its janitor went on taking guards after close returned (found by
 * review, from the code). The scan now stops at the next segment once the table is closing. Here the scan is held
 * inside its first segment while another owner (a second table handle: another slot of the lock file) holds every
 * other segment; the close begins; the scan goes on. Before, it waited for each held segment after the close began
 * and gave each up (the guards' count of waits given up rose by the number of segments after its own).
 */
@Timeout(120)
class ClosingScanTest
{
    private static final int KEYS = 200; // a table of 1,000 has 8 segments: the first has some of them

    @TempDir
    Path dir;

    @Test
    void shouldStopAScanAtTheNextSegmentOnceTheTableIsClosing() throws Exception
    {
        final Path file = dir.resolve("t.map");
        try (QuotaTable holder = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            final QuotaTable closing = QuotaTable.open(file, 1_000, 2, false, System.nanoTime());
            final List<Integer> held = new ArrayList<>();
            final CountDownLatch inside = new CountDownLatch(1);
            final CountDownLatch go = new CountDownLatch(1);
            final AtomicReference<Throwable> scanFailed = new AtomicReference<>();
            final Thread scanner = new Thread(() ->
            {
                try
                {
                    closing.scans().forEachEntryInPlace((key, value) ->
                    {
                        if (inside.getCount() > 0)
                        {
                            inside.countDown();
                            awaitUninterruptibly(go);
                        }
                    });
                }
                catch (final Throwable ex)
                {
                    scanFailed.set(ex);
                }
            }, "scanner");
            try
            {
                for (int i = 0; i < KEYS; i++)
                {
                    closing.lookup().resolve(Entry.KIND_BUCKET, Action.AUTH, "key-" + i, 10, 60_000, 1, 0,
                        System.nanoTime(), null);
                }
                scanner.start();
                assertTrue(inside.await(60, TimeUnit.SECONDS), "the scan visited nothing");
                // every segment but the scan's, as a process stopped holding them would
                int scanning = -1;
                for (int segment = 0; segment < holder.guard().segments(); segment++)
                {
                    if (holder.guard().acquireSegment(segment, 0))
                    {
                        held.add(segment);
                    }
                    else
                    {
                        scanning = segment;
                    }
                }
                assertTrue(scanning >= 0 && scanning < holder.guard().segments() - 1, "the scan is in segment " +
                    scanning + " of " + holder.guard().segments() + ": no segment after it to test with");
                final long givenUpBefore = holder.guard().timeouts();

                final Thread closer = new Thread(closing::detach, "closer");
                closer.start();
                awaitClosing(closing);
                go.countDown();
                scanner.join(60_000);
                closer.join(60_000);
                assertFalse(scanner.isAlive() || closer.isAlive(), "the scan or the close did not end");
                assertEquals(null, scanFailed.get(), "the scan failed");
                assertEquals(givenUpBefore, holder.guard().timeouts(), "the scan went on after the table began " +
                    "closing: it waited for held segments after segment " + scanning + ", each 50 ms, and the close " +
                    "with it");
            }
            finally
            {
                go.countDown();
                held.forEach(holder.guard()::releaseSegment);
                scanner.join(60_000);
                closing.close();
            }
        }
    }

    /** Until the table refuses new operations: its close has begun its wait for those in flight. */
    private static void awaitClosing(final QuotaTable table)
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() - deadline < 0)
        {
            try
            {
                if (table.acquirePolicyGuard(0))
                {
                    table.releasePolicyGuard();
                }
            }
            catch (final IllegalStateException closed)
            {
                return;
            }
            Thread.onSpinWait();
        }
        throw new AssertionError("the table did not begin closing within 60 s");
    }

    private static void awaitUninterruptibly(final CountDownLatch latch)
    {
        while (true)
        {
            try
            {
                latch.await();
                return;
            }
            catch (final InterruptedException ex)
            {
                // the test's own thread: only the latch ends this wait
            }
        }
    }
}
