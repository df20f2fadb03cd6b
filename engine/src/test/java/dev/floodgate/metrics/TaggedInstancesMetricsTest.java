package dev.floodgate.metrics;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.Ticker;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two instances in one JVM bound to one registry (the broker trial of the meters: two tables, or one table opened
 * twice). Binding the second replaced every meter of the first, so the first's checks vanished from the registry
 * without a word and nothing told the two apart; tagged binders now publish side by side.
 */
@Timeout(60)
class TaggedInstancesMetricsTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(3_600_000 * MS);
    private final Ticker ticker = now::get;

    private FloodgateConfig config(final String name, final int capacity)
    {
        return FloodgateConfig.builder().file(dir.resolve(name)).capacity(capacity).ticker(ticker)
            .limit(Action.PUBLISH, 100, 1_000).build();
    }

    private static double admitted(final SimpleMeterRegistry registry, final String table)
    {
        return registry.get("floodgate.checks").tags("action", "publish", "outcome", "admitted", "table", table)
            .functionCounter().count();
    }

    @Test
    void shouldPublishTwoTaggedInstancesSideBySideAndReplaceOnlyTheirOwnOnRebinding()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Floodgate orders = Floodgate.open(config("orders.map", 1_000));
             Floodgate audit = Floodgate.open(config("audit.map", 2_000)))
        {
            new FloodgateMetrics(orders, Tags.of("table", "orders")).bindTo(registry);
            new FloodgateMetrics(audit, Tags.of("table", "audit")).bindTo(registry);
            orders.checkLimitInCaller("alice", Action.PUBLISH);
            audit.checkLimitInCaller("alice", Action.PUBLISH);
            audit.checkLimitInCaller("alice", Action.PUBLISH);
            assertEquals(1, admitted(registry, "orders"), "the first instance bound");
            assertEquals(2, admitted(registry, "audit"), "the second");
            assertEquals(1_000, registry.get("floodgate.table.capacity").tag("table", "orders").gauge().value());
            assertEquals(2_000, registry.get("floodgate.table.capacity").tag("table", "audit").gauge().value());

            orders.close(); // a reload of one table: its meters read NaN until the new instance is bound
            assertTrue(Double.isNaN(admitted(registry, "orders")), "a closed instance reads NaN");
            try (Floodgate reopened = Floodgate.open(config("orders.map", 1_000)))
            {
                new FloodgateMetrics(reopened, Tags.of("table", "orders")).bindTo(registry);
                reopened.checkLimitInCaller("bob", Action.PUBLISH);
                assertEquals(1, admitted(registry, "orders"), "the reopened instance, not the closed one");
                audit.checkLimitInCaller("alice", Action.PUBLISH);
                assertEquals(3, admitted(registry, "audit"), "the other instance's meters are kept");
                assertEquals(2, registry.get("floodgate.checks").tags("action", "publish", "outcome", "admitted")
                    .functionCounters().size(), "one series per table");
            }
        }
    }

    @Test
    void shouldTellTheSameTableOpenedTwiceApart()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Floodgate first = Floodgate.open(config("shared.map", 1_000));
             Floodgate second = Floodgate.openAdopting(config("shared.map", 1_000)))
        {
            new FloodgateMetrics(first, Tags.of("table", "first")).bindTo(registry);
            new FloodgateMetrics(second, Tags.of("table", "second")).bindTo(registry);
            first.checkLimitInCaller("alice", Action.PUBLISH);
            second.checkLimitInCaller("bob", Action.PUBLISH);
            second.checkLimitInCaller("bob", Action.PUBLISH);
            assertEquals(1, admitted(registry, "first"), "each instance's own checks");
            assertEquals(2, admitted(registry, "second"), "each instance's own checks");
            assertEquals(registry.get("floodgate.table.entries").tag("table", "first").gauge().value(),
                registry.get("floodgate.table.entries").tag("table", "second").gauge().value(), "one node table");
        }
    }

    @Test
    void shouldReplaceTaggedMetersWhenAnUntaggedBinderIsBound()
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        try (Floodgate orders = Floodgate.open(config("orders.map", 1_000)))
        {
            new FloodgateMetrics(orders, Tags.of("table", "orders")).bindTo(registry);
            new FloodgateMetrics(orders).bindTo(registry); // one instance per registry, as before tags
            orders.checkLimitInCaller("alice", Action.PUBLISH);
            assertEquals(1, registry.get("floodgate.checks").tags("action", "publish", "outcome", "admitted")
                .functionCounters().size(), "no series left with another set of tag keys");
            assertEquals(1, registry.get("floodgate.checks").tags("action", "publish", "outcome", "admitted")
                .functionCounter().count());
        }
    }

    @Test
    void shouldRefuseATagThatReusesOneOfTheMetersOwnKeys()
    {
        try (Floodgate gate = Floodgate.open(config("own.map", 1_000)))
        {
            assertEquals("tag key action is one of the meters' own (action, outcome, fallback): expected another, " +
                "e.g. table", assertThrows(IllegalArgumentException.class,
                    () -> new FloodgateMetrics(gate, Tags.of("action", "orders"))).getMessage());
        }
    }
}
