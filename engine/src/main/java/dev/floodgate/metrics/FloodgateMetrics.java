package dev.floodgate.metrics;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateFileException;
import dev.floodgate.Stats;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.lang.ref.WeakReference;
import java.util.List;
import java.util.Set;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * Floodgate's figures as Micrometer meters. Low cardinality: tags are the action and the outcome, never an
 * identifier. Every counter below is a {@link FunctionCounter} reading the engine's own count (found with
 * {@code registry.get(name).functionCounter()}, not {@code counter()}).
 *
 * <ul>
 * <li>this process's: {@code floodgate.checks} (counter; tags {@code action}, {@code outcome} =
 * {@code admitted|refused|shadowed|never}; {@link Floodgate#processChecks()});</li>
 * <li>the node's, shared by every JVM mapping the file ({@link Floodgate#stats()}):
 * {@code floodgate.table.entries}, {@code floodgate.table.capacity}, {@code floodgate.table.occupancy}
 * (gauges; occupancy a ratio, 0 to 1), {@code floodgate.table.full} and {@code floodgate.checks.unreachable}
 * (counters, tag {@code action}), {@code floodgate.janitor.reaped}, {@code floodgate.tier.repairs} and
 * {@code floodgate.tier.divergences} (counters: segment entry counts a scan repaired; scans that found a count
 * diverged in a chained tier, each such scan once, after which scans skip the rest of that segment until the file is
 * recovered offline).</li>
 * </ul>
 * With a cluster quota (issue 12), registered only then (see {@link ClusterMeters}): this process's
 * {@code floodgate.cluster.refused} (tag {@code action}), {@code floodgate.cluster.fallbacks} (tags {@code action},
 * {@code fallback} = {@code refuse|local}), {@code floodgate.cluster.round.trips},
 * {@code floodgate.cluster.tokens.leased}, {@code floodgate.cluster.unavailable} (counters) and
 * {@code floodgate.cluster.connected} (gauge, 1 or 0); the node's {@code floodgate.cluster.leases} and
 * {@code floodgate.cluster.tokens.unused} (gauges). A check the cluster refused is also counted
 * {@code refused} in {@code floodgate.checks}.
 * The node's figures walk the table, so one read serves every node meter for a second (the registry polls
 * them one by one). A closed {@code Floodgate} is refused where its meters are made or bound, with the engine's
 * {@link IllegalStateException} naming its file, and nothing is registered. Once an instance bound is closed, every
 * meter reads NaN, Micrometer's value for a figure that is gone (a node meter within the second its last read is
 * kept), never an exception in the scrape; so do the node's meters once its file is removed from under it.
 *
 * <p>The meters hold the instance weakly, as Micrometer holds a meter's object, and nothing else does: a closed
 * instance the broker dropped is not kept mapped by its registry. Binding replaces every Floodgate meter the
 * registry holds, those the new binding does not register again included (a cluster meter, when the instance bound
 * has no cluster quota): by the ids before the registry's filters that bindings registered them under, which a filter
 * that renames them does not hide ({@link MeterRegistrar}), and by name. So an instance reopened and bound to the
 * same registry is the one its meters read (before, the registry handed the new binding the old instance's meters,
 * which read NaN for good): one instance per registry, the last bound; or one per tag value:
 * {@link #FloodgateMetrics(Floodgate, Iterable)} tags every meter, and binding then replaces only the meters of the
 * same tag values (or of none), so two instances (two tables, or one table opened twice) publish side by side in one
 * registry. Thread-safe.
 */
public final class FloodgateMetrics implements MeterBinder
{
    private static final long NODE_READ_NANOS = 1_000_000_000L;
    private static final String[] OUTCOMES = {"admitted", "refused", "shadowed", "never"};

    /** Every name this binder and {@link ClusterMeters} register, replaced when an instance is bound. */
    private static final Set<String> NAMES = Set.of("floodgate.checks", "floodgate.table.full",
        "floodgate.checks.unreachable", "floodgate.table.entries", "floodgate.table.capacity",
        "floodgate.table.occupancy", "floodgate.janitor.reaped", "floodgate.tier.repairs",
        "floodgate.tier.divergences", "floodgate.cluster.refused",
        "floodgate.cluster.fallbacks", "floodgate.cluster.round.trips", "floodgate.cluster.tokens.leased",
        "floodgate.cluster.unavailable", "floodgate.cluster.connected", "floodgate.cluster.leases",
        "floodgate.cluster.tokens.unused");

    /** The meters' own tag keys, which a binder's tags may not reuse. */
    private static final Set<String> OWN_KEYS = Set.of("action", "outcome", "fallback");

    private final WeakReference<Floodgate> instance;
    private final Tags tags;
    private Stats node; // guarded by this
    private long nodeReadAt; // guarded by this

    /**
     * @param floodgate the instance whose figures to publish; open.
     * @throws IllegalStateException naming its file, when it is closed.
     */
    public FloodgateMetrics(final Floodgate floodgate)
    {
        this(floodgate, Tags.empty());
    }

    /**
     * Meters tagged with {@code tags} on top of their own, to tell this instance from another bound to the same
     * registry (a second table, or the same table opened twice), e.g. {@code Tags.of("table", "orders")}: a fixed,
     * small set of values, never an identifier. Give every instance bound to one registry the same tag keys: an
     * untagged binding replaces every Floodgate meter, and one name under two sets of keys aggregates badly.
     *
     * @param floodgate the instance whose figures to publish; open.
     * @param tags      added to every meter; keys other than the meters' own {@code action}, {@code outcome} and
     *                  {@code fallback}.
     * @throws IllegalStateException    naming its file, when it is closed.
     * @throws IllegalArgumentException naming the key, when a tag reuses one of the meters' own keys.
     */
    public FloodgateMetrics(final Floodgate floodgate, final Iterable<Tag> tags)
    {
        this.tags = Tags.of(java.util.Objects.requireNonNull(tags, "tags"));
        for (final Tag tag : this.tags)
        {
            if (OWN_KEYS.contains(tag.getKey()))
            {
                throw new IllegalArgumentException("tag key " + tag.getKey() + " is one of the meters' own " +
                    "(action, outcome, fallback): expected another, e.g. table");
            }
        }
        this.instance = new WeakReference<>(requireOpen(java.util.Objects.requireNonNull(floodgate, "floodgate")));
    }

    /**
     * Registers the meters, replacing every Floodgate meter {@code registry} holds but another instance's told apart
     * by a tag: one carrying each of this binder's tag keys, with another value for one of them at least (so an
     * untagged binder replaces them all, as one instance per registry; those it finds by their names: in a registry
     * whose filters rename them, a tagged binding's meters stay, as only the same id before the filters is found).
     *
     * @throws IllegalStateException naming the file, when the instance was closed since these metrics were made.
     */
    @Override
    public void bindTo(final MeterRegistry registry)
    {
        final Floodgate floodgate = instance.get();
        if (floodgate == null)
        {
            throw new IllegalStateException("the Floodgate these metrics were made for is gone");
        }
        requireOpen(floodgate); // before anything is removed or registered: a closed one's meters would read NaN
        // a previous instance's meters would keep reading it, NaN once closed: found by the ids bindings registered
        // (whatever names the registry's filters gave them), and by name for meters no binding of this class loader
        // registered (a plugin reloaded in another)
        MeterRegistrar.removeBound(registry, id -> !taggedApart(id));
        for (final Meter meter : List.copyOf(registry.getMeters()))
        {
            if (NAMES.contains(meter.getId().getName()) && !taggedApart(meter.getId()))
            {
                registry.remove(meter);
            }
        }
        // Micrometer holds a meter's object weakly: the engine, which the broker holds, not this binder, which nobody
        // does once bound (its meters went flat after the first GC; found by review). The functions hold the binder,
        // which holds the engine weakly: they read only the object Micrometer hands them.
        final MeterRegistrar meters = new MeterRegistrar(registry, floodgate, tags);
        for (final Action action : Action.values())
        {
            final String tag = action.configPrefix();
            for (int o = 0; o < OUTCOMES.length; o++)
            {
                final int outcome = o;
                meters.counter("floodgate.checks", "checks by this process", f -> process(f, action, outcome),
                    "action", tag, "outcome", OUTCOMES[o]);
            }
            meters.counter("floodgate.table.full", "checks of every process that found the table full",
                f -> node(f, s -> s.tableFull().get(action)), "action", tag);
            meters.counter("floodgate.checks.unreachable",
                "checks of every process that could not reach their entry in time",
                f -> node(f, s -> s.degraded().get(action)), "action", tag);
        }
        meters.gauge("floodgate.table.entries", "entries in the node's table, tombstoned included",
            f -> node(f, s -> s.buckets() + s.windowCounters() + s.blockedEntries() + s.cluster().leasesHeld() +
                s.tombstoned()));
        meters.gauge("floodgate.table.capacity", "entries the node's table holds", f -> node(f, Stats::capacity));
        meters.gauge("floodgate.table.occupancy", "entries over capacity", f -> nodeRatio(f, s -> (double)(
            s.buckets() + s.windowCounters() + s.blockedEntries() + s.cluster().leasesHeld() + s.tombstoned()) /
            s.capacity()));
        meters.counter("floodgate.janitor.reaped", "entries the janitors of every process removed",
            f -> node(f, Stats::reaped));
        meters.counter("floodgate.tier.repairs",
            "segment entry counts left ahead by a process that died inside an insert, repaired online",
            f -> node(f, Stats::tierRepairs));
        meters.counter("floodgate.tier.divergences", "scans that found a segment entry count diverged in a chained " +
            "tier (each scan once): scans skip the rest of such a segment until the file is recovered offline",
            f -> node(f, Stats::tierDivergences));
        if (floodgate.config().hasClusterQuota())
        {
            ClusterMeters.bind(meters, this);
        }
    }

    /** @return whether {@code id} carries every tag key of this binder, one at least with another value. */
    private boolean taggedApart(final Meter.Id id)
    {
        boolean apart = false;
        for (final Tag tag : tags)
        {
            final String value = id.getTag(tag.getKey());
            if (value == null)
            {
                return false;
            }
            apart |= !value.equals(tag.getValue());
        }
        return apart;
    }

    /**
     * @return {@code floodgate}, asked for this process's checks, a read of the heap every meter here makes: a closed
     * instance throws the engine's {@link IllegalStateException}, naming its file, as every public method then does.
     */
    private static Floodgate requireOpen(final Floodgate floodgate)
    {
        floodgate.processChecks();
        return floodgate;
    }

    /** @return a figure of the node's, from a read at most a second old; NaN once closed. */
    double nodeFigure(final Floodgate floodgate, final ToLongFunction<Stats> figure)
    {
        return node(floodgate, figure);
    }

    private static double process(final Floodgate floodgate, final Action action, final int outcome)
    {
        try
        {
            final Stats.Checks checks = floodgate.processChecks().get(action);
            return switch (outcome)
            {
                case 0 -> checks.admitted();
                case 1 -> checks.refused();
                case 2 -> checks.shadowed();
                default -> checks.never();
            };
        }
        catch (final IllegalStateException closed)
        {
            return Double.NaN;
        }
    }

    private double node(final Floodgate floodgate, final ToLongFunction<Stats> figure)
    {
        final Stats stats = nodeStats(floodgate);
        return stats == null ? Double.NaN : figure.applyAsLong(stats);
    }

    private double nodeRatio(final Floodgate floodgate, final ToDoubleFunction<Stats> figure)
    {
        final Stats stats = nodeStats(floodgate);
        return stats == null ? Double.NaN : figure.applyAsDouble(stats);
    }

    /** @return the node's figures, read at most once a second; null once the instance is closed. */
    private synchronized Stats nodeStats(final Floodgate floodgate)
    {
        final long now = floodgate.config().ticker().nanos();
        if (node == null || now - nodeReadAt >= NODE_READ_NANOS)
        {
            try
            {
                node = floodgate.stats();
                nodeReadAt = now;
            }
            catch (final IllegalStateException | FloodgateFileException unreadable)
            {
                // closed, or the file at its path is not its table any more: a scrape must not throw
                return null;
            }
        }
        return node;
    }
}
