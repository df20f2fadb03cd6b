package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.tools.ActionConverter;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.FileOption;
import dev.floodgate.tools.format.Durations;
import dev.floodgate.tools.table.TableFiles;
import dev.floodgate.tools.table.TableReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/** {@code floodgate watch}: {@code stats} and the top refused identifiers, refreshed until interrupted. */
@Command(name = "watch", mixinStandardHelpOptions = true,
    description = "Shows stats and the most refused identifiers, refreshed every interval until Ctrl-C.")
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
    private int n;

    @Option(names = "--interval", paramLabel = "D", defaultValue = "1s",
        description = "Refresh interval, e.g. 1s or 500ms (default ${DEFAULT-VALUE}).")
    private String interval;

    @Option(names = "--iterations", paramLabel = "N", defaultValue = "0",
        description = "Stop after N refreshes (default: never).")
    private long iterations;

    @Option(names = "--no-clear", description = "Do not clear the screen between refreshes.")
    private boolean noClear;

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
        if (n < 0 || iterations < 0)
        {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), "-n and --iterations: expected 0 " +
                "or more");
        }
        final PrintWriter out = spec.commandLine().getOut();
        try (QuotaTable table = TableFiles.openExisting(fileOption.file()))
        {
            long next = System.nanoTime();
            for (long i = 0; iterations == 0 || i < iterations; i++)
            {
                final TableReport report = TableReport.read(table);
                if (!noClear)
                {
                    out.print(CLEAR);
                }
                out.println("floodgate watch - " + LocalTime.now().truncatedTo(ChronoUnit.SECONDS) + ", every " +
                    Durations.nanos(intervalNs) + " (Ctrl-C to stop)");
                out.println();
                StatsCommand.print(out, report);
                out.println();
                out.println("top refused" + (action == null ? "" : " (" + ActionConverter.name(action) + ")"));
                TopCommand.print(out, report.topBlocked(action, n));
                out.flush();
                if (iterations != 0 && i + 1 == iterations)
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
        }
        return ExitCode.OK;
    }
}
