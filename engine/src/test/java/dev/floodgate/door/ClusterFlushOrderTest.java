package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.ManualTicker;
import dev.floodgate.store.ClusterCounterRegion;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code ClusterGate.flush} reads its client's running totals ({@code source.totals()}) <em>before</em> entering the
 * synchronised {@code ClusterCounters.flush}, which adds {@code totals - flushed} to the node's counters in the file
 * and remembers them. Two flushers (the clock thread every 100 ms, and a caller of {@code checks()}/{@code stats()},
 * so every meter scrape; or close) can enter in the other order than they read: the older totals then land second,
 * as a negative delta. The node's round trips (tokens leased, refunded, unavailable calls) go backwards in the file
 * until the next flush: {@code floodgate stats}, {@code stats --prometheus} and {@code Stats.cluster()} read a counter
 * that decreased (Prometheus reads a counter reset), and a closing process's last flush can leave it so.
 *
 * <p>Deterministic: this thread holds the counters' monitor while a flusher that already read the totals waits for
 * it; a later flush (reentrant here) lands first.
 */
@Timeout(60)
class ClusterFlushOrderTest
{
    private static final long NOW = 3_600_000_000_000L;

    @TempDir
    Path dir;

    @Test
    void shouldNeverMoveTheNodesClusterCountersBackwards() throws Exception
    {
        final AtomicReference<LeaseSource.Totals> totals = new AtomicReference<>(LeaseSource.Totals.NONE);
        final LeaseSource source = new LeaseSource()
        {
            @Override
            public CompletionStage<Grant> lease(final Action action, final String identifier, final long sequence,
                final long want)
            {
                return CompletableFuture.completedFuture(new Grant(UNAVAILABLE, 0, 0));
            }

            @Override
            public CompletionStage<Grant> refund(final Action action, final String identifier, final long sequence,
                final long tokens)
            {
                return CompletableFuture.completedFuture(new Grant(UNAVAILABLE, 0, 0));
            }

            @Override
            public Totals totals()
            {
                return totals.get();
            }

            @Override
            public long timeoutMs()
            {
                return 100;
            }

            @Override
            public void close()
            {
            }
        };
        final int actions = Action.values().length;
        final long[] limits = new long[actions];
        final long[] windows = new long[actions];
        final long[] leases = new long[actions];
        java.util.Arrays.fill(limits, 100);
        java.util.Arrays.fill(windows, 1_000);
        java.util.Arrays.fill(leases, 10);
        final ClusterGate gate = new ClusterGate(source, new Object(), new ManualTicker(NOW), limits, windows, leases,
            new boolean[actions], 100, 1, holder -> true);
        try (QuotaTable table = QuotaTable.open(dir.resolve("cluster.map"), 1_000, 2, false, NOW))
        {
            final ClusterCounterRegion region = new ClusterCounterRegion(table.header());
            gate.flush(region); // warm: every class the flush needs is loaded, so BLOCKED below is the monitor
            totals.set(new LeaseSource.Totals(1, 0, 0));
            final Thread clock;
            synchronized (gate.counters())
            {
                // the clock thread's flush: reads round trips = 1, then waits for the counters
                clock = new Thread(() -> gate.flush(region), "flusher");
                clock.start();
                Await.until("the flusher waits for the counters' monitor", 30,
                    () -> clock.getState() == Thread.State.BLOCKED);
                totals.set(new LeaseSource.Totals(2, 0, 0)); // a round trip later
                gate.flush(region); // a scrape's flush (checks()/stats()) lands first: +2
                assertEquals(2, region.totalVolatile(ClusterCounterRegion.ROUND_TRIPS));
            }
            clock.join(10_000);
            assertEquals(2, region.totalVolatile(ClusterCounterRegion.ROUND_TRIPS),
                "the node's round trips, after both flushes of a client that made 2");
        }
    }
}
