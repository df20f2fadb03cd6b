package dev.floodgate.metrics;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.Ticker;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.lang.ref.WeakReference;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The binder's meters outlive the instance they read. A meter's function holds the {@code FloodgateMetrics}, which
 * holds its {@code Floodgate} strongly, and the binder offers no way to remove its meters; so after {@code close()}:
 * <ul>
 * <li>an instance opened again in the same JVM (a broker restarting its engine, a reload) and bound to the same
 * registry gets Micrometer's existing meters back (same names and tags), which read the closed instance: every
 * meter reads NaN for good and the new instance's checks are never published;</li>
 * <li>the registry keeps the closed instance reachable, so the cleaner never unmaps its file (Floodgate#close: the
 * mapping is released once the instance is unreachable).</li>
 * </ul>
 */
@Timeout(60)
class MetricsAfterCloseTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(3_600_000 * MS);
    private final Ticker ticker = now::get;

    private FloodgateConfig config(final String name)
    {
        return FloodgateConfig.builder().file(dir.resolve(name)).capacity(1_000).ticker(ticker)
            .limit(Action.PUBLISH, 100, 1_000).build();
    }

    @Test
    void shouldPublishTheChecksOfAnInstanceReopenedAndBoundToTheSameRegistry()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Floodgate first = Floodgate.open(config("first.map")))
        {
            new FloodgateMetrics(first).bindTo(registry);
            first.checkLimitInCaller("alice", Action.PUBLISH);
        }
        try (Floodgate second = Floodgate.open(config("second.map")))
        {
            new FloodgateMetrics(second).bindTo(registry);
            second.checkLimitInCaller("alice", Action.PUBLISH);
            second.checkLimitInCaller("alice", Action.PUBLISH);
            assertEquals(2, registry.get("floodgate.checks").tags("action", "publish", "outcome", "admitted")
                .functionCounter().count(), "the open instance's admitted checks");
            assertEquals(1_000, registry.get("floodgate.table.capacity").gauge().value(), "its table's capacity");
        }
    }

    /**
     * A registry that renames the meters (a prefix filter, common in a registry shared with the broker's own meters):
     * the binding replaced a previous instance's meters by their names, found none, and Micrometer handed the reopened
     * instance's binding the closed one's meters, every one reading NaN for good (found by the monitoring trial).
     */
    @Test
    void shouldPublishAnInstanceReopenedAndBoundToARegistryThatRenamesItsMeters()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        registry.config().meterFilter(new MeterFilter()
        {
            @Override
            public Meter.Id map(final Meter.Id id)
            {
                return id.withName("broker." + id.getName());
            }
        });
        try (Floodgate first = Floodgate.open(config("first.map")))
        {
            new FloodgateMetrics(first).bindTo(registry);
            first.checkLimitInCaller("alice", Action.PUBLISH);
        }
        try (Floodgate second = Floodgate.open(config("first.map")))
        {
            new FloodgateMetrics(second).bindTo(registry);
            second.checkLimitInCaller("alice", Action.PUBLISH);
            second.checkLimitInCaller("alice", Action.PUBLISH);
            assertEquals(2, registry.get("broker.floodgate.checks").tags("action", "publish", "outcome", "admitted")
                .functionCounter().count(), "the open instance's admitted checks");
            assertEquals(1_000, registry.get("broker.floodgate.table.capacity").gauge().value(),
                "its table's capacity");
        }
    }

    @Test
    void shouldNotKeepAClosedInstanceReachableFromTheRegistry()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final WeakReference<Floodgate> closed = openBindAndClose(registry);
        for (int i = 0; i < 5 && closed.get() != null; i++)
        {
            System.gc(); // a full collection clears an unreachable referent at once
        }
        assertNull(closed.get(), "the registry still holds the closed Floodgate (its file stays mapped)");
    }

    /**
     * Making the meters of a closed instance, or binding them once it was closed, succeeded without a word, and every
     * meter read NaN from its first scrape (found by the broker trial): every public method of a closed instance
     * throws (issue 9), and so now do these, with the engine's words naming the file. Nothing is registered.
     */
    @Test
    void shouldRefuseToMakeOrBindTheMetersOfAClosedInstanceNamingItsFile()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        final Floodgate gate = Floodgate.open(config("closed.map"));
        final FloodgateMetrics metrics = new FloodgateMetrics(gate);
        gate.close();
        final String closed = "Floodgate on " + dir.resolve("closed.map") + " is closed";
        assertEquals(closed, assertThrows(IllegalStateException.class, () -> metrics.bindTo(registry)).getMessage());
        assertEquals(List.of(), registry.getMeters(), "meters of a closed instance");
        assertEquals(closed, assertThrows(IllegalStateException.class, () -> new FloodgateMetrics(gate))
            .getMessage());
    }

    private WeakReference<Floodgate> openBindAndClose(final SimpleMeterRegistry registry)
    {
        final Floodgate gate = Floodgate.open(config("leak.map"));
        new FloodgateMetrics(gate).bindTo(registry);
        gate.close();
        return new WeakReference<>(gate);
    }
}
