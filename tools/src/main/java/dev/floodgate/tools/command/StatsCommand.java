package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.tools.ActionConverter;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.FileOption;
import dev.floodgate.tools.format.Durations;
import dev.floodgate.tools.format.Json;
import dev.floodgate.tools.format.TextTable;
import dev.floodgate.tools.table.EntryKind;
import dev.floodgate.tools.table.TableFiles;
import dev.floodgate.tools.table.TableReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Instant;
import java.util.concurrent.Callable;

/** {@code floodgate stats}: the file header, entry counts, janitor counters and attached processes. */
@Command(name = "stats", mixinStandardHelpOptions = true,
    description = "Prints the table's header, entry counts by kind and action, table-full and degraded " +
        "checks, the table guard, janitor runs and reaps, and the attached processes.")
public final class StatsCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Mixin
    private FileOption fileOption;

    @Option(names = "--json", description = "One JSON object.")
    private boolean json;

    @Override
    public Integer call()
    {
        final TableReport report;
        try (QuotaTable table = TableFiles.openExisting(fileOption.file()))
        {
            report = TableReport.read(table);
        }
        final PrintWriter out = spec.commandLine().getOut();
        if (json)
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
    public static void print(final PrintWriter out, final TableReport report)
    {
        out.printf("file         %s (%,d bytes)%n", report.file(), report.fileBytes());
        out.printf("format       version %d, %d shards, created %s, boot %s%n", report.formatVersion(),
            report.shards(), Instant.ofEpochMilli(report.createdWallMs()), report.bootId());
        out.printf("occupancy    %.2f%% (%,d of %,d entries; %,d live, %,d tombstoned)%n",
            report.occupancyPercent(), report.entries().size(), report.capacity(), report.liveEntries(),
            report.tombstonedEntries());
        out.printf("janitor      %,d runs, %,d reaped, %,d tombstoned, %,d revived%n", report.janitorRuns(),
            report.reaped(), report.tombstonedTotal(), report.revived());
        out.printf("table full   %,d events%n", report.tableFullTotal());
        out.printf("degraded     %,d checks (table guard busy)%n", report.degradedTotal());
        final TableReport.Guard guard = report.guard();
        out.printf("guard        %s, %,d repairs (last dead owner %s), %,d timeouts%n",
            guard.owner() == 0 ? "free" : "held by pid " + guard.owner(), guard.repairs(),
            guard.lastDeadOwner() == 0 ? "none" : "pid " + guard.lastDeadOwner(), guard.timeouts());
        out.println();
        final TextTable counts = new TextTable(new String[] {"ACTION", "BUCKETS", "WINDOWS", "BLOCKED", "TABLE-FULL",
            "DEGRADED", "ADMITTED", "REFUSED", "SHADOWED", "NEVER"},
            new boolean[] {false, true, true, true, true, true, true, true, true, true});
        for (final Action action : Action.values())
        {
            final dev.floodgate.Stats.Checks checks = report.checks().get(action);
            counts.row(ActionConverter.name(action), String.format("%,d", report.count(EntryKind.BUCKET, action)),
                String.format("%,d", report.count(EntryKind.WINDOW, action)),
                String.format("%,d", report.count(EntryKind.BLOCKED, action)),
                String.format("%,d", report.tableFull()[action.ordinal()]),
                String.format("%,d", report.degraded()[action.ordinal()]),
                String.format("%,d", checks.admitted()), String.format("%,d", checks.refused()),
                String.format("%,d", checks.shadowed()), String.format("%,d", checks.never()));
        }
        counts.print(out);
        out.println();
        out.printf("processes    %d attached%n", report.processes().size());
        if (!report.processes().isEmpty())
        {
            final TextTable processes = new TextTable(new String[] {"PID", "STATE", "HEARTBEAT", "ATTACHED"},
                new boolean[] {true, false, true, true});
            for (final TableReport.AttachedProcess process : report.processes())
            {
                processes.row(Long.toString(process.pid()), process.alive() ? "alive" : "gone",
                    Durations.nanos(process.heartbeatAgeNs()) + " ago", Durations.nanos(process.attachedForNs()));
            }
            processes.print(out);
        }
    }

    /**
     * @param report what.
     * @return one JSON object; field names are stable.
     */
    public static String json(final TableReport report)
    {
        final Json json = new Json().beginObject()
            .field("file", report.file())
            .field("fileBytes", report.fileBytes())
            .field("formatVersion", report.formatVersion())
            .field("shards", report.shards())
            .field("capacity", report.capacity())
            .field("createdAt", Instant.ofEpochMilli(report.createdWallMs()).toString())
            .field("bootId", report.bootId())
            .field("entries", report.entries().size())
            .field("liveEntries", report.liveEntries())
            .field("tombstonedEntries", report.tombstonedEntries())
            .field("occupancyPercent", report.occupancyPercent())
            .field("tableFullEvents", report.tableFullTotal())
            .field("degradedChecks", report.degradedTotal())
            .field("janitorRuns", report.janitorRuns())
            .field("reaped", report.reaped())
            .field("tombstoned", report.tombstonedTotal())
            .field("revived", report.revived());
        json.name("guard").beginObject()
            .field("owner", report.guard().owner())
            .field("repairs", report.guard().repairs())
            .field("timeouts", report.guard().timeouts())
            .field("lastDeadOwner", report.guard().lastDeadOwner())
            .endObject();
        json.name("actions").beginObject();
        for (final Action action : Action.values())
        {
            json.name(ActionConverter.name(action)).beginObject()
                .field("buckets", report.count(EntryKind.BUCKET, action))
                .field("windows", report.count(EntryKind.WINDOW, action))
                .field("blocked", report.count(EntryKind.BLOCKED, action))
                .field("tableFull", report.tableFull()[action.ordinal()])
                .field("degraded", report.degraded()[action.ordinal()])
                .field("admitted", report.checks().get(action).admitted())
                .field("refused", report.checks().get(action).refused())
                .field("shadowed", report.checks().get(action).shadowed())
                .field("never", report.checks().get(action).never())
                .endObject();
        }
        json.endObject().name("processes").beginArray();
        for (final TableReport.AttachedProcess process : report.processes())
        {
            json.beginObject()
                .field("pid", process.pid())
                .field("alive", process.alive())
                .field("heartbeatAgeMs", process.heartbeatAgeNs() / 1_000_000L)
                .field("attachedForMs", process.attachedForNs() / 1_000_000L)
                .endObject();
        }
        return json.endArray().endObject().toString();
    }
}
