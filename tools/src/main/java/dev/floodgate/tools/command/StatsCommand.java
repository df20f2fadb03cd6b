package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableCounters;
import dev.floodgate.tools.ActionConverter;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.FileOption;
import dev.floodgate.tools.format.Json;
import dev.floodgate.tools.format.PrometheusText;
import dev.floodgate.tools.format.TextTable;
import dev.floodgate.tools.table.TableFiles;
import dev.floodgate.tools.table.TableReading;
import io.prometheus.metrics.model.snapshots.Labels;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code floodgate stats}: the file header, entry counts, janitor counters and attached processes. */
@Command(name = "stats", mixinStandardHelpOptions = true,
    description = {"Prints the table's header, entry counts by kind and action, table-full events and unreachable " +
        "checks, the table guard, the entries the segments count beside those the file counts (a difference that " +
        "stays: a process died between the two counts; a janitor repairs it within two passes), janitor runs and " +
        "reaps, how many processes are attached, and the node's " +
        "cluster quota (leases held, tokens unused, round trips, cluster refusals, fallbacks); as text, JSON " +
        "or the Prometheus text format.",
        "Reads the file read-only, without any lock: needs only read permission."})
public final class StatsCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Mixin
    private FileOption fileOption;

    @Option(names = "--json", description = "One JSON object.")
    private boolean json;

    @Option(names = "--prometheus", description = "The node's figures in the Prometheus text format (for " +
        "node_exporter's textfile collector or a sidecar).")
    private boolean prometheus;

    @Option(names = "--label", paramLabel = "NAME=VALUE", description = "With --prometheus: a label added to every " +
        "sample, e.g. table=orders, to tell apart the tables of one host (node_exporter reads the same series from " +
        "two files as one). Repeatable.")
    private List<String> labels = new ArrayList<>();

    @Override
    public Integer call()
    {
        if (json && prometheus)
        {
            throw new ParameterException(spec.commandLine(), "--json and --prometheus: expected one of them");
        }
        if (!labels.isEmpty() && !prometheus)
        {
            throw new ParameterException(spec.commandLine(), "--label: only with --prometheus");
        }
        final Labels extra;
        try
        {
            extra = PrometheusText.labels(labels);
        }
        catch (final IllegalArgumentException bad)
        {
            throw new ParameterException(spec.commandLine(), "--label " + bad.getMessage());
        }
        final TableReading report;
        try (FloodgateReader reader = TableFiles.openReader(fileOption.file()))
        {
            report = TableReading.read(reader);
        }
        final PrintWriter out = spec.commandLine().getOut();
        if (prometheus)
        {
            final ByteArrayOutputStream text = new ByteArrayOutputStream();
            try
            {
                PrometheusText.write(report, extra, text);
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException(ex); // a byte array does not fail
            }
            out.print(text.toString(StandardCharsets.UTF_8));
        }
        else if (json)
        {
            out.println(json(report));
        }
        else
        {
            print(out, report);
        }
        out.flush();
        return ExitCode.OK;
    }

    /**
     * @param out    where.
     * @param report what.
     */
    public static void print(final PrintWriter out, final TableReading report)
    {
        final TableCounters c = report.counters();
        out.printf("file         %s (%,d bytes)%n", report.file(), report.identity().fileBytes());
        out.printf("format       version %d, %d shards, created %s, boot %s%n", report.identity().formatVersion(),
            report.identity().shards(), Instant.ofEpochMilli(report.identity().createdWallMs()),
            report.identity().bootId());
        out.printf("occupancy    %.2f%% (%,d of %,d entries; %,d live, %,d tombstoned%s)%n",
            report.occupancyPercent(), report.entries(), report.identity().capacity(), report.liveEntries(),
            report.tombstonedEntries(), report.unreadable() == 0 ? "" : String.format("; %,d unreadable: being " +
            "written or damaged", report.unreadable()));
        out.printf("janitor      %,d runs, %,d reaped, %,d tombstoned, %,d revived%n", c.janitorRuns(), c.reaped(),
            c.tombstoned(), c.revived());
        out.printf("table full   %,d events%n", c.tableFullTotal());
        out.printf("unreachable  %,d checks (entry's segment held past the check's wait, or table full)%n",
            c.degradedTotal());
        out.printf("guards       %,d segment guards held now, %,d dead holders taken over, %,d waits given up%n",
            c.guardsHeld(), c.guardRepairs(), c.guardTimeouts());
        out.printf("entry counts %,d repaired, diverged in a chained tier seen by %,d scan(s)%s%n", c.tierRepairs(),
            c.tierDivergences(), c.tierDivergences() == 0 ? "" : " (scans skip the rest of such a segment until " +
            "the file is recovered offline)");
        out.printf("entry total  %,d in the segments, %,d counted by the file (what an insert tests against the " +
            "capacity), %,d repairs given up%s%n", c.entryCount(), c.fileEntryCount(), c.entryRepairsGivenUp(),
            c.entryCountDifference() == 0 ? "" : String.format("; differ by %+,d: a process died between an " +
            "insert's or a removal's two counts (a janitor repairs it within two passes), or one was between them " +
            "as this was read", c.entryCountDifference()));
        out.println();
        final TextTable counts = new TextTable(new String[] {"ACTION", "BUCKETS", "WINDOWS", "BLOCKED", "LEASES",
            "TABLE-FULL", "UNREACHABLE", "ADMITTED", "REFUSED", "SHADOWED", "NEVER"},
            new boolean[] {false, true, true, true, true, true, true, true, true, true, true});
        for (final Action action : Action.values())
        {
            final dev.floodgate.Stats.Checks checks = report.checks().get(action);
            counts.row(ActionConverter.name(action), String.format("%,d", report.count(EntryKind.BUCKET, action)),
                String.format("%,d", report.count(EntryKind.WINDOW, action)),
                String.format("%,d", report.count(EntryKind.BLOCKED, action)),
                String.format("%,d", report.count(EntryKind.LEASE, action)),
                String.format("%,d", c.tableFull().get(action)), String.format("%,d", c.degraded().get(action)),
                String.format("%,d", checks.admitted()), String.format("%,d", checks.refused()),
                String.format("%,d", checks.shadowed()), String.format("%,d", checks.never()));
        }
        counts.print(out);
        out.println();
        out.printf("processes    %d attached%n", report.attached());
        ClusterLines.print(out, report.cluster());
    }

    /**
     * @param report what.
     * @return one JSON object; field names are stable.
     */
    public static String json(final TableReading report)
    {
        final Json json = new Json().beginObject();
        write(json, report);
        return json.endObject().toString();
    }

    /**
     * Writes the stats fields into an open JSON object.
     *
     * @param json   an object being written.
     * @param report what.
     */
    static void write(final Json json, final TableReading report)
    {
        final TableCounters c = report.counters();
        json.field("file", report.file())
            .field("fileBytes", report.identity().fileBytes())
            .field("formatVersion", report.identity().formatVersion())
            .field("shards", report.identity().shards())
            .field("capacity", report.identity().capacity())
            .field("createdAt", Instant.ofEpochMilli(report.identity().createdWallMs()).toString())
            .field("bootId", report.identity().bootId())
            .field("entries", report.entries())
            .field("liveEntries", report.liveEntries())
            .field("tombstonedEntries", report.tombstonedEntries())
            .field("unreadableEntries", report.unreadable())
            .field("occupancyPercent", report.occupancyPercent())
            .field("tableFullEvents", c.tableFullTotal())
            .field("degradedChecks", c.degradedTotal())
            .field("janitorRuns", c.janitorRuns())
            .field("reaped", c.reaped())
            .field("tombstoned", c.tombstoned())
            .field("revived", c.revived())
            .field("tierRepairs", c.tierRepairs())
            .field("tierDivergences", c.tierDivergences())
            .field("attachedProcesses", report.attached());
        json.name("guard").beginObject()
            .field("segmentsHeld", c.guardsHeld())
            .field("repairs", c.guardRepairs())
            .field("timeouts", c.guardTimeouts())
            .field("lastDeadOwner", c.lastDeadOwner())
            .endObject();
        json.name("entryTotal").beginObject()
            .field("inSegments", c.entryCount())
            .field("countedByFile", c.fileEntryCount())
            .field("difference", c.entryCountDifference())
            .field("repairsGivenUp", c.entryRepairsGivenUp())
            .endObject();
        json.name("actions").beginObject();
        for (final Action action : Action.values())
        {
            json.name(ActionConverter.name(action)).beginObject()
                .field("buckets", report.count(EntryKind.BUCKET, action))
                .field("windows", report.count(EntryKind.WINDOW, action))
                .field("blocked", report.count(EntryKind.BLOCKED, action))
                .field("leases", report.count(EntryKind.LEASE, action))
                .field("tableFull", c.tableFull().get(action))
                .field("degraded", c.degraded().get(action))
                .field("admitted", report.checks().get(action).admitted())
                .field("refused", report.checks().get(action).refused())
                .field("shadowed", report.checks().get(action).shadowed())
                .field("never", report.checks().get(action).never())
                .endObject();
        }
        json.endObject();
        ClusterLines.write(json, report.cluster());
    }
}
