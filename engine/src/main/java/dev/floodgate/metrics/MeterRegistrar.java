package dev.floodgate.metrics;

import dev.floodgate.Floodgate;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;

import java.util.HashSet;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.function.Predicate;
import java.util.function.ToDoubleFunction;

/**
 * Registers one binding's meters, each with the binder's tags, replacing first the meter registered under the same id
 * before the registry's filters, and records those ids for the next binding to the registry ({@link #removeBound}).
 * {@link FloodgateMetrics#bindTo} replaced a previous instance's meters by their names, as the registry holds them:
 * after a filter that renames them (a prefix, {@code broker.floodgate.checks}) it found none, and Micrometer handed
 * the reopened instance's binding the closed one's meters, which read NaN for good; and a meter the new binding does
 * not register again (another tag value's, a cluster meter when the reopened instance has no cluster quota) stayed,
 * reading NaN. A binding for one use: it holds the instance strongly, the meters only weakly.
 */
final class MeterRegistrar
{
    /**
     * The ids before the filters of the Floodgate meters bindings registered, per registry (held weakly: a registry
     * dropped takes its entry with it). Guarded by itself.
     */
    private static final Map<MeterRegistry, Set<Meter.Id>> BOUND = new WeakHashMap<>();

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
        replace(new Meter.Id(name, all, null, description, Meter.Type.COUNTER));
        FunctionCounter.builder(name, floodgate, count).description(description).tags(all).register(registry);
    }

    /** Registers a {@link Gauge} reading {@code value} of the instance, tagged the binder's. */
    void gauge(final String name, final String description, final ToDoubleFunction<Floodgate> value)
    {
        replace(new Meter.Id(name, tags, null, description, Meter.Type.GAUGE));
        Gauge.builder(name, floodgate, value).description(description).tags(tags).register(registry);
    }

    /** Removes the meter registered under {@code id} (before the filters), if any, and records the id as bound. */
    private void replace(final Meter.Id id)
    {
        registry.removeByPreFilterId(id);
        synchronized (BOUND)
        {
            BOUND.computeIfAbsent(registry, r -> new HashSet<>()).add(id);
        }
    }

    /**
     * Removes from {@code registry} every meter a binding registered there whose id before the filters
     * {@code replaced} accepts, whatever names the registry's filters gave it.
     */
    static void removeBound(final MeterRegistry registry, final Predicate<Meter.Id> replaced)
    {
        synchronized (BOUND)
        {
            final Set<Meter.Id> bound = BOUND.get(registry);
            if (bound == null)
            {
                return;
            }
            for (final Iterator<Meter.Id> ids = bound.iterator(); ids.hasNext(); )
            {
                final Meter.Id id = ids.next();
                if (replaced.test(id))
                {
                    registry.removeByPreFilterId(id);
                    ids.remove();
                }
            }
        }
    }
}
