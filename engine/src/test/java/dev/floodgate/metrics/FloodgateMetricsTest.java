package dev.floodgate.metrics;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.Ticker;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.TierCounts;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The meters a broker binds: this process's checks by action and outcome, the node's table figures, never an
 * identifier as a tag.
 */
class FloodgateMetricsTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(3_600_000 * MS);
    private final Ticker ticker = now::get;

    private double counter(final SimpleMeterRegistry registry, final String name, final String... tags)
    {
        return registry.get(name).tags(tags).functionCounter().count();
    }

    @Test
    void shouldCountThisProcesssChecksAndReadTheNodesTable()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("metrics.map")).capacity(1_000)
            .ticker(ticker).limit(Action.PUBLISH, 2, 1_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            new FloodgateMetrics(gate).bindTo(registry);
            gate.checkLimitInCaller("alice", Action.PUBLISH);
            gate.checkLimitInCaller("alice", Action.PUBLISH);
            gate.checkLimitInCaller("alice", Action.PUBLISH);
            gate.checkLimitInCaller("alice", Action.PUBLISH, 3);
            gate.checkLimit("10.0.0.1", Action.AUTH);
            assertEquals(2, counter(registry, "floodgate.checks", "action", "publish", "outcome", "admitted"));
            assertEquals(2, counter(registry, "floodgate.checks", "action", "publish", "outcome", "refused"));
            assertEquals(1, counter(registry, "floodgate.checks", "action", "publish", "outcome", "never"));
            assertEquals(1, counter(registry, "floodgate.checks", "action", "auth", "outcome", "admitted"));
            // alice's window and blocked counter, the IP's bucket
            assertEquals(3, registry.get("floodgate.table.entries").gauge().value());
            assertEquals(1_000, registry.get("floodgate.table.capacity").gauge().value());
            assertEquals(0.003, registry.get("floodgate.table.occupancy").gauge().value(), 1e-9);
            assertEquals(0, counter(registry, "floodgate.table.full", "action", "publish"));
            assertEquals(0, counter(registry, "floodgate.checks.unreachable", "action", "auth"));
            assertEquals(0, registry.get("floodgate.janitor.reaped").functionCounter().count());
            assertEquals(0, registry.get("floodgate.tier.repairs").functionCounter().count());
            assertEquals(0, registry.get("floodgate.tier.divergences").functionCounter().count());
            for (final Meter meter : registry.getMeters())
            {
                assertTrue(meter.getId().getTags().stream().noneMatch(t -> t.getValue().contains("alice") ||
                    t.getValue().contains("10.0.0.1")), "no identifier as a tag: " + meter.getId());
            }
        }
        assertTrue(Double.isNaN(counter(registry, "floodgate.checks", "action", "publish", "outcome", "admitted")),
            "a closed instance reads NaN");
        now.addAndGet(1_000 * MS);
        assertTrue(Double.isNaN(registry.get("floodgate.table.entries").gauge().value()));
    }

    /**
     * The segment entry counts a scan repaired (a process died inside an insert) or found diverged in a chained tier
     * (the janitor then skips the rest of that segment until the file is recovered offline): node counters, as
     * {@code floodgate stats} shows them, which had no meter.
     */
    @Test
    void shouldCountTheNodesRepairedAndDivergedEntryCounts()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final Path file = dir.resolve("tiers.map");
        // no janitor pass during the test: each scan that meets the divergence counts it again
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000).ticker(ticker)
            .cleanupIntervalMs(3_600_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            new FloodgateMetrics(gate).bindTo(registry);
            gate.checkLimit("10.0.0.1", Action.AUTH);
            assertEquals(0, registry.get("floodgate.tier.repairs").functionCounter().count());
            try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
            {
                final int chained = TierCounts.segmentWithAChainedTier(table);
                TierCounts.countOneAhead(table, chained);
                TierCounts.countOneAhead(table, TierCounts.segmentWithOneTier(table)); // another: not chained
                table.scans().forEachEntryInPlace((key, entry) -> { }); // what the janitor's pass does
            }
            now.addAndGet(1_000 * MS); // past the second a node read serves
            assertEquals(1, registry.get("floodgate.tier.repairs").functionCounter().count());
            assertEquals(1, registry.get("floodgate.tier.divergences").functionCounter().count());
        }
    }

    /** Binds as README.md shows it, keeping no reference to the binder; @return a weak one, to see it collected. */
    private static WeakReference<FloodgateMetrics> bindAsTheReadmeShows(final Floodgate gate,
        final SimpleMeterRegistry registry)
    {
        final FloodgateMetrics metrics = new FloodgateMetrics(gate);
        metrics.bindTo(registry);
        return new WeakReference<>(metrics);
    }

    /**
     * README.md binds the meters with {@code new FloodgateMetrics(floodgate).bindTo(registry)}; Micrometer holds a
     * meter's state object weakly, and FloodgateMetrics registered every node meter and floodgate.checks on itself,
     * which nothing else holds: after the first GC those meters read NaN or stopped while the engine was open (found
     * by review). A full collection (System.gc) clears such a weak reference at once.
     */
    @Test
    void shouldKeepCountingAfterAGcWhenBoundAsTheReadmeShows()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("gc.map")).capacity(1_000)
            .ticker(ticker).limit(Action.PUBLISH, 2, 1_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            final WeakReference<FloodgateMetrics> binder = bindAsTheReadmeShows(gate, registry);
            gate.checkLimitInCaller("alice", Action.PUBLISH);
            gate.checkLimitInCaller("alice", Action.PUBLISH);
            System.gc();
            System.gc();
            assertEquals(2, counter(registry, "floodgate.checks", "action", "publish", "outcome", "admitted"),
                "binder collected: " + (binder.get() == null));
            assertEquals(1_000, registry.get("floodgate.table.capacity").gauge().value());
        }
    }
}
