package dev.floodgate;

import dev.floodgate.store.Entry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.Await;
import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.SegmentHolder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code close()} is safe: checks in flight when it runs (warm ones, and cold ones waiting for a segment another
 * JVM holds) either finish or throw {@link IllegalStateException}, never crash the JVM; afterwards every method
 * but {@code config()} throws it.
 */
@Timeout(300)
class CloseTest
{
    private static final int ROUNDS = 25;

    @TempDir
    Path dir;

    private static FloodgateConfig config(final Path file)
    {
        return FloodgateConfig.builder().file(file).capacity(10_000)
            .limit(Action.PUBLISH, 1_000_000, FloodgateConfig.MAX_WINDOW_MS).build();
    }

    @Test
    void shouldCloseUnderChecksInFlightWhileAnotherJvmKeepsASegmentBusy() throws Exception
    {
        final Path file = dir.resolve("close.map");
        Floodgate.open(config(file)).close();
        // a key whose segment is not the file record's: a held record segment would stop every open instead
        String held = null;
        int segment = -1;
        try (QuotaTable table = QuotaTable.open(file, 10_000, 2, false, System.nanoTime()))
        {
            for (int i = 0; held == null; i++)
            {
                segment = table.lookup().segmentOf(Entry.KIND_WINDOW, Action.PUBLISH, "warm-" + i);
                held = segment == table.lookup().headerSegment() ? null : "warm-" + i;
            }
        }
        final String heldKey = held;
        long finished = 0;
        long closedUnder = 0;
        try (ChildJvm holder = ChildJvm.start(SegmentHolder.class, file.toString(), Integer.toString(segment)))
        {
            holder.awaitLine("HELD", 120);
            for (int round = 0; round < ROUNDS; round++)
            {
                final Floodgate gate = Floodgate.open(config(file));
                final CountDownLatch started = new CountDownLatch(3);
                final AtomicReference<Throwable> unexpected = new AtomicReference<>();
                final AtomicLong done = new AtomicLong();
                final AtomicLong refusedByClose = new AtomicLong();
                final List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < 3; t++)
                {
                    final int kind = t;
                    threads.add(new Thread(() ->
                    {
                        started.countDown();
                        for (long i = 0; ; i++)
                        {
                            try
                            {
                                switch (kind)
                                {
                                    case 0 -> gate.checkLimitInCaller("warm-" + (i & 7), Action.SUBSCRIBE);
                                    case 1 -> gate.checkLimit("fresh-" + i, Action.AUTH); // cold, some wait
                                    default -> gate.checkLimitInCaller(heldKey, Action.PUBLISH); // held: waits
                                }
                                done.incrementAndGet();
                            }
                            catch (final IllegalStateException closed)
                            {
                                refusedByClose.incrementAndGet();
                                return;
                            }
                            catch (final Throwable other)
                            {
                                unexpected.set(other);
                                return;
                            }
                        }
                    }, "check-" + t));
                }
                threads.forEach(Thread::start);
                try
                {
                    started.await();
                    // let every thread get going: some are inside a 50 ms wait now (checks that all threw end it:
                    // they are reported below)
                    Await.until("100 checks done", 60, () -> done.get() >= 100 || unexpected.get() != null);
                }
                finally
                {
                    gate.close(); // on every path: the checking threads end with it
                }
                for (final Thread thread : threads)
                {
                    thread.join(60_000);
                    assertTrue(!thread.isAlive(), "a check in flight returned after close");
                }
                assertEquals(null, unexpected.get(), "only IllegalStateException after close");
                assertEquals(3, refusedByClose.get(), "every thread was told the gate is closed");
                finished += done.get();
                closedUnder++;
            }
        }
        System.out.printf("CLOSE rounds=%d checksBeforeClose=%d%n", closedUnder, finished);
        assertEquals(ROUNDS, closedUnder);
    }

    @Test
    void shouldThrowFromEveryMethodButConfigAfterClose()
    {
        final Floodgate gate = Floodgate.open(config(dir.resolve("closed.map")));
        gate.checkLimit("10.0.0.1", Action.AUTH);
        gate.close();
        final List<Consumer<Floodgate>> calls = List.of(
            g -> g.checkLimit("a", Action.AUTH), g -> g.checkLimit("a", Action.AUTH, 2),
            g -> g.checkLimitInCaller("a", Action.PUBLISH), g -> g.checkLimitInCaller("a", Action.PUBLISH, 2),
            g -> g.charge(List.of(Charge.window("a", Action.PUBLISH, 1))), Floodgate::policy,
            g -> g.reconfigure(g.config()), g -> g.reset("a", Action.AUTH), g -> g.resetEntries("a", Action.AUTH),
            g -> g.blockedCount("a", Action.AUTH), g -> g.topBlocked(Action.AUTH, 3), Floodgate::stats,
            Floodgate::checks, Floodgate::cleanup, Floodgate::shards);
        for (final Consumer<Floodgate> call : calls)
        {
            final IllegalStateException error = assertThrows(IllegalStateException.class, () -> call.accept(gate));
            assertTrue(error.getMessage().contains("closed"), error.getMessage());
        }
        assertEquals(dir.resolve("closed.map"), gate.config().file());
        gate.close(); // idempotent
    }
}
