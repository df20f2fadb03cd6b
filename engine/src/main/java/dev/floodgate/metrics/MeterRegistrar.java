package dev.floodgate.metrics;

import dev.floodgate.Floodgate;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.function.ToDoubleFunction;

/**
 * Registers one binding's meters, each with the binder's tags, replacing first the meter registered under the same id
 * before the registry's filters. {@link FloodgateMetrics#bindTo} replaces a previous instance's meters by their names,
 * as the registry holds them: after a filter that renames them (a prefix, {@code broker.floodgate.checks}) it found
 * none, and Micrometer handed the reopened instance's binding the closed one's meters, which read NaN for good. A
 * binding for one use: it holds the instance strongly, the meters only weakly.
 */
final class MeterRegistrar
{
    private final MeterRegistry registry;
    private final Floodgate floodgate;
    private final Tags tags;

    MeterRegistrar(final MeterRegistry registry, final Floodgate floodgate, final Tags tags)
    {
        this.registry = registry;
        this.floodgate = floodgate;
        this.tags = tags;
    }

    /** Registers a {@link FunctionCounter} reading {@code count}, tagged {@code own} and the binder's tags. */
    void counter(final String name, final String description, final ToDoubleFunction<Floodgate> count,
        final String... own)
    {
        final Tags all = Tags.of(own).and(tags);
        registry.removeByPreFilterId(new Meter.Id(name, all, null, description, Meter.Type.COUNTER));
        FunctionCounter.builder(name, floodgate, count).description(description).tags(all).register(registry);
    }

    /** Registers a {@link Gauge} reading {@code value} of the instance, tagged the binder's. */
    void gauge(final String name, final String description, final ToDoubleFunction<Floodgate> value)
    {
        registry.removeByPreFilterId(new Meter.Id(name, tags, null, description, Meter.Type.GAUGE));
        Gauge.builder(name, floodgate, value).description(description).tags(tags).register(registry);
    }
}
