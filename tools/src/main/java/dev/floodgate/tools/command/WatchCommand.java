package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.BlockedCount;
import dev.floodgate.tools.ActionConverter;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.FileOption;
import dev.floodgate.tools.format.Durations;
import dev.floodgate.tools.format.Json;
import dev.floodgate.tools.table.TableFiles;
import dev.floodgate.tools.table.TableReading;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Instant;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * {@code floodgate watch}: {@code stats} and the top refused identifiers, refreshed until interrupted. Each
 * refresh maps the file afresh (read-only), so a table replaced or grown meanwhile is seen whole.
 */
@Command(name = "watch", mixinStandardHelpOptions = true,
    description = {"Shows stats and the most refused identifiers, refreshed every interval until Ctrl-C.",
        "Clears the screen between refreshes only when stdout is a terminal."})
public final class WatchCommand implements Callable<Integer>
{
    private static final String CLEAR = "\033[H\033[2J";

    @Spec
    private CommandSpec spec;

    @Mixin
    private FileOption fileOption;

    @Option(names = "--action", paramLabel = "ACTION", converter = ActionConverter.class,
        description = "Top refused of this action only (default: every action).")
    private Action action;

    @Option(names = "-n", paramLabel = "N", defaultValue = "10", description = "Top N (default ${DEFAULT-VALUE}).")
    private long n;

    @Option(names = "--interval", paramLabel = "D", defaultValue = "1s",
        description = "Refresh interval: " + Durations.FORMS + ", e.g. 1s or 500ms (default ${DEFAULT-VALUE}).")
    private String interval;

    /** Null: until Ctrl-C. Not 0 for that: a typed 0 (a script's "$N") would silently mean "forever". */
    @Option(names = "--iterations", paramLabel = "N", description = "Stop after N refreshes (default: never).")
    private Long iterations;

    @Option(names = "--no-clear", description = "Do not clear the screen between refreshes.")
    private boolean noClear;

    @Option(names = "--json", description = "One JSON object per refresh, one per line: the stats fields, the " +
        "time and the top refused.")
    private boolean json;

    @Override
    public Integer call() throws InterruptedException
    {
        final long intervalNs;
        try
        {
            intervalNs = Durations.parse(interval);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--interval " + ex.getMessage());
        }
        if (iterations != null && iterations < 1)
        {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "--iterations " + iterations +
                ": expected 1 or more (leave it out to refresh until Ctrl-C)");
        }
        final PrintWriter out = spec.commandLine().getOut();
        // A terminal only: escape codes in a pipe or a log file are noise.
        final boolean clear = !noClear && !json && System.console() != null;
        long next = System.nanoTime();
        for (long i = 0; iterations == null || i < iterations; i++)
        {
            final TableReading report;
            try (FloodgateReader reader = TableFiles.openReader(fileOption.file()))
            {
                report = TableReading.read(reader, action, n);
            }
            if (json)
            {
                out.println(json(report));
            }
            else
            {
                print(out, report, clear, intervalNs);
            }
            if (out.checkError()) // flushes; true once the reader is gone (`watch | head -1`): stop, not poll forever
            {
                return ExitCode.REFUSED;
            }
            if (iterations != null && i + 1 == iterations)
            {
                break;
            }
            next += intervalNs;
            final long wait = next - System.nanoTime();
            if (wait > 0)
            {
                TimeUnit.NANOSECONDS.sleep(wait); // the refresh cadence, not a synchronisation
            }
        }
        return ExitCode.OK;
    }

    private void print(final PrintWriter out, final TableReading report, final boolean clear, final long intervalNs)
    {
        if (clear)
        {
            out.print(CLEAR);
        }
        out.println("floodgate watch - " + LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + ", every " +
            Durations.nanos(intervalNs) + " (Ctrl-C to stop)");
        out.println();
        StatsCommand.print(out, report);
        out.println();
        out.println("top refused" + (action == null ? "" : " (" + ActionConverter.name(action) + ")"));
        TopCommand.print(out, report.top());
    }

    private String json(final TableReading report)
    {
        final Json doc = new Json().beginObject().field("time", Instant.now().toString());
        StatsCommand.write(doc, report);
        doc.name("topRefused").beginArray();
        for (final BlockedCount entry : report.top())
        {
            doc.beginObject().field("identifier", entry.label()).field("identifierCut", entry.labelCut())
                .field("action", ActionConverter.name(entry.action())).field("blocked", entry.blocked()).endObject();
        }
        return doc.endArray().endObject().toString();
    }
}
