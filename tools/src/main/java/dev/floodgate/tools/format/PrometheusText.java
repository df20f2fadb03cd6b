package dev.floodgate.tools.format;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.Stats;
import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.TableCounters;
import dev.floodgate.tools.table.TableReading;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.ToLongFunction;
import java.util.regex.Pattern;

/**
 * The node's figures in the Prometheus text format, for node_exporter's textfile collector or a sidecar: built
 * as the Prometheus Java client's snapshots and written by its own {@link PrometheusTextFormatWriter}, never by
 * hand. Names follow the meters of {@code dev.floodgate.metrics.FloodgateMetrics} with underscores; counters
 * get the writer's {@code _total}. Every figure here is the node's (all processes mapping the file). Labels are
 * the action, the outcome, the entry kind and the cluster's fallback, never an identifier, and the operator's own
 * ({@code --label}) on every sample.
 */
public final class PrometheusText
{
    /** The labels of the figures themselves, which {@link #labels} refuses. */
    private static final Set<String> OWN = Set.of("action", "outcome", "kind", "fallback");
    private static final Pattern NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

    private final Labels extra;

    private PrometheusText(final Labels extra)
    {
        this.extra = extra;
    }

    /**
     * @param report the table read.
     * @param out    where to write (not closed).
     * @throws IOException when writing fails.
     */
    public static void write(final TableReading report, final OutputStream out) throws IOException
    {
        write(report, Labels.EMPTY, out);
    }

    /**
     * Parses {@code NAME=VALUE} labels to add to every sample: what tells two tables of one host apart, whose
     * figures node_exporter would otherwise read as the same series from two files.
     *
     * @param given each {@code NAME=VALUE}.
     * @return the labels.
     * @throws IllegalArgumentException naming the one given and what was expected: a name of letters, digits and
     *                                  underscores not starting with a digit or {@code __}, other than the figures'
     *                                  own labels, given once, and a value that is not empty.
     */
    public static Labels labels(final List<String> given)
    {
        Labels labels = Labels.EMPTY;
        for (final String label : given)
        {
            final int eq = label.indexOf('=');
            final String name = eq < 0 ? label : label.substring(0, eq);
            if (eq < 0 || eq == label.length() - 1)
            {
                throw new IllegalArgumentException(label + ": expected NAME=VALUE, a value not empty");
            }
            if (!NAME.matcher(name).matches() || name.startsWith("__"))
            {
                throw new IllegalArgumentException(label + ": expected a label name of letters, digits and " +
                    "underscores, not starting with a digit or __");
            }
            if (OWN.contains(name) || labels.contains(name))
            {
                throw new IllegalArgumentException(label + ": " + name + " is " + (OWN.contains(name) ? "one of " +
                    "the figures' own labels (action, outcome, kind, fallback)" : "given twice") +
                    ": expected another");
            }
            labels = labels.merge(Labels.of(name, label.substring(eq + 1)));
        }
        return labels;
    }

    /**
     * @param report the table read.
     * @param extra  labels added to every sample ({@link #labels}).
     * @param out    where to write (not closed).
     * @throws IOException when writing fails.
     */
    public static void write(final TableReading report, final Labels extra, final OutputStream out) throws IOException
    {
        new PrometheusTextFormatWriter(false).write(out, new PrometheusText(extra).snapshots(report),
            EscapingScheme.UNDERSCORE_ESCAPING);
    }

    private MetricSnapshots snapshots(final TableReading report)
    {
        final TableCounters c = report.counters();
        final List<MetricSnapshot> metrics = new ArrayList<>();
        final CounterSnapshot.Builder checks = CounterSnapshot.builder().name("floodgate_checks")
            .help("checks by every process mapping the table, by action and outcome");
        final String[] outcomes = {"admitted", "refused", "shadowed", "never"};
        final List<ToLongFunction<Stats.Checks>> values = List.of(Stats.Checks::admitted, Stats.Checks::refused,
            Stats.Checks::shadowed, Stats.Checks::never);
        for (final Action action : Action.values())
        {
            for (int o = 0; o < outcomes.length; o++)
            {
                checks.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                    .labels(Labels.of("action", action.configPrefix(), "outcome", outcomes[o]).merge(extra))
                    .value(values.get(o).applyAsLong(report.checks().get(action))).build());
            }
        }
        metrics.add(checks.build());
        metrics.add(perAction("floodgate_table_full", "checks that found the table full", c.tableFull()));
        metrics.add(perAction("floodgate_checks_unreachable",
            "checks that could not reach their entry in time (answered by the unreachable rule)", c.degraded()));
        final GaugeSnapshot.Builder entries = GaugeSnapshot.builder().name("floodgate_table_entries")
            .help("live entries by action and kind");
        for (final Action action : Action.values())
        {
            for (final EntryKind kind : EntryKind.values())
            {
                entries.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                    .labels(Labels.of("action", action.configPrefix(), "kind", kind.name().toLowerCase(java.util.Locale.ROOT))
                        .merge(extra))
                    .value(report.count(kind, action)).build());
            }
        }
        metrics.add(entries.build());
        metrics.add(gauge("floodgate_table_tombstoned", "entries the janitor is ageing out", report.tombstonedEntries()));
        metrics.add(gauge("floodgate_table_capacity", "entries the table holds", report.identity().capacity()));
        metrics.add(gauge("floodgate_table_occupancy_ratio", "entries over capacity",
            report.occupancyPercent() / 100.0));
        metrics.add(gauge("floodgate_processes_attached", "processes that have the table open", report.attached()));
        metrics.add(counter("floodgate_janitor_reaped", "entries the janitors removed", c.reaped()));
        metrics.add(counter("floodgate_janitor_runs", "janitor passes", c.janitorRuns()));
        metrics.add(counter("floodgate_guard_repairs", "guards of dead holders taken over", c.guardRepairs()));
        metrics.add(gauge("floodgate_guards_held", "segment guards held at the moment of reading", c.guardsHeld()));
        metrics.add(counter("floodgate_tier_repairs", "segment entry counts left ahead by a process that died " +
            "inside an insert, repaired online", c.tierRepairs()));
        metrics.add(counter("floodgate_tier_divergences", "scans that found a segment entry count diverged in a " +
            "chained tier (each scan once): scans skip the rest of such a segment until the file is recovered " +
            "offline", c.tierDivergences()));
        metrics.add(gauge("floodgate_table_entries_in_segments", "entries the segments count, every kind, " +
            "tombstoned included", c.entryCount()));
        metrics.add(gauge("floodgate_table_entries_counted_by_file", "entries the file counts, what an insert tests " +
            "against the capacity: apart from floodgate_table_entries_in_segments for more than a moment, a process " +
            "died between the two counts (a janitor repairs it within two passes)", c.fileEntryCount()));
        metrics.add(counter("floodgate_entry_total_repairs_given_up", "repairs of the file's entry count that could " +
            "not take every segment guard within their budget (tried again at the next janitor pass)",
            c.entryRepairsGivenUp()));
        cluster(metrics, report.cluster());
        return new MetricSnapshots(metrics);
    }

    /**
     * The node's cluster-quota figures (issue 12), over every action (the file keeps no split per action). No
     * connection gauge: the connection is each broker JVM's ({@code floodgate.cluster.connected} in its meters).
     */
    private void cluster(final List<MetricSnapshot> metrics, final ClusterStats.Node c)
    {
        metrics.add(gauge("floodgate_cluster_leases", "lease entries in the node's table", c.leasesHeld()));
        metrics.add(gauge("floodgate_cluster_tokens_unused", "tokens the node leased and has not spent",
            c.tokensUnused()));
        metrics.add(counter("floodgate_cluster_round_trips", "commands sent to Redis by every process",
            c.roundTrips()));
        metrics.add(counter("floodgate_cluster_tokens_leased", "tokens the cluster granted into the node's balances",
            c.tokensLeased()));
        metrics.add(counter("floodgate_cluster_tokens_refunded", "tokens the node gave back", c.tokensRefunded()));
        metrics.add(counter("floodgate_cluster_unavailable", "lease calls with no answer within their bound",
            c.unavailable()));
        metrics.add(counter("floodgate_cluster_refused", "checks refused by the cluster (also refused in " +
            "floodgate_checks)", c.refused()));
        metrics.add(CounterSnapshot.builder().name("floodgate_cluster_fallbacks")
            .help("checks answered by the fallback for want of a lease, by fallback")
            .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                .labels(Labels.of("fallback", "refuse").merge(extra))
                .value(c.fallbacksRefused()).build())
            .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                .labels(Labels.of("fallback", "local").merge(extra))
                .value(c.fallbacksLocal()).build())
            .build());
    }

    private CounterSnapshot perAction(final String name, final String help,
        final java.util.Map<Action, Long> byAction)
    {
        final CounterSnapshot.Builder builder = CounterSnapshot.builder().name(name).help(help);
        for (final Action action : Action.values())
        {
            builder.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                .labels(Labels.of("action", action.configPrefix()).merge(extra)).value(byAction.get(action)).build());
        }
        return builder.build();
    }

    private CounterSnapshot counter(final String name, final String help, final long value)
    {
        return CounterSnapshot.builder().name(name).help(help)
            .dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder().labels(extra).value(value).build()).build();
    }

    private GaugeSnapshot gauge(final String name, final String help, final double value)
    {
        return GaugeSnapshot.builder().name(name).help(help)
            .dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(extra).value(value).build()).build();
    }
}
