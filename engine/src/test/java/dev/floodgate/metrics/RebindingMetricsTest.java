package dev.floodgate.metrics;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.testkit.LocalRedis;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A binding replaces the meters of a previous one, as README says: all of them for an untagged binding, those of the
 * same tag values for a tagged one. It found them by name as the registry holds them, and a registry whose filters
 * rename the meters (a prefix) holds none by those names: only the meters the new binding registers again were
 * replaced (by their ids before the filters), so an untagged binding after tagged ones left the tagged meters beside
 * its own, and an instance reopened without a cluster quota left the previous binding's cluster meters, reading NaN
 * for good (found by review; fail before in the renaming registry, pass in a plain one).
 */
@Timeout(60)
class RebindingMetricsTest
{
    @TempDir
    Path dir;

    private FloodgateConfig.Builder config()
    {
        return FloodgateConfig.builder().file(dir.resolve("t.map")).capacity(1_000).limit(Action.PUBLISH, 100, 1_000);
    }

    @Test
    void shouldReplaceTaggedMetersWhenAnUntaggedBinderIsBoundToARegistryThatRenamesThem()
    {
        for (final boolean renaming : new boolean[] {false, true})
        {
            final MeterRegistry registry = registry(renaming);
            try (Floodgate gate = Floodgate.open(config().build()))
            {
                new FloodgateMetrics(gate, Tags.of("table", "orders")).bindTo(registry);
                new FloodgateMetrics(gate, Tags.of("table", "audit")).bindTo(registry);
                new FloodgateMetrics(gate).bindTo(registry); // one instance per registry, the last bound
                gate.checkLimitInCaller("alice", Action.PUBLISH);
                assertEquals(List.of("[]"), tagValues(registry, renaming), "renaming " + renaming +
                    ": the tables of the floodgate.checks series of publish, admitted (only the untagged binding's)");
            }
        }
    }

    @Test
    void shouldRemoveTheClusterMetersWhenAnInstanceReopenedWithoutAClusterQuotaIsBound() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            for (final boolean renaming : new boolean[] {false, true})
            {
                final MeterRegistry registry = registry(renaming);
                try (Floodgate clustered = Floodgate.open(config().clusterRedisUri(redis.uri())
                    .clusterLimit(Action.PUBLISH, 10, 60_000).build()))
                {
                    new FloodgateMetrics(clustered).bindTo(registry);
                }
                try (Floodgate reopened = Floodgate.open(config().build()))
                {
                    new FloodgateMetrics(reopened).bindTo(registry);
                    assertEquals(List.of(), registry.getMeters().stream().map(m -> m.getId().getName())
                        .filter(name -> name.contains("floodgate.cluster.")).distinct().sorted()
                        .collect(Collectors.toList()), "renaming " + renaming + ": cluster meters of the closed " +
                        "instance, reading NaN, beside a binding without a cluster quota");
                }
            }
        }
    }

    private static MeterRegistry registry(final boolean renaming)
    {
        final SimpleMeterRegistry registry = new SimpleMeterRegistry();
        if (renaming)
        {
            registry.config().meterFilter(new MeterFilter()
            {
                @Override
                public Meter.Id map(final Meter.Id id)
                {
                    return id.withName("broker." + id.getName());
                }
            });
        }
        return registry;
    }

    /** @return the {@code table} tag of each publish/admitted {@code floodgate.checks} series, "[]" for none. */
    private static List<String> tagValues(final MeterRegistry registry, final boolean renaming)
    {
        return registry.find((renaming ? "broker." : "") + "floodgate.checks")
            .tags("action", "publish", "outcome", "admitted").functionCounters().stream()
            .map(c -> String.valueOf(c.getId().getTag("table") == null ? "[]" : c.getId().getTag("table")))
            .sorted().collect(Collectors.toList());
    }
}
