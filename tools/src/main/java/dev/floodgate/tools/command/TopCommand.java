package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.BlockedCount;
import dev.floodgate.tools.ActionConverter;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.FileOption;
import dev.floodgate.tools.format.Json;
import dev.floodgate.tools.format.TextTable;
import dev.floodgate.tools.table.TableFiles;
import dev.floodgate.tools.table.TableReading;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code floodgate top --action A}: the most-refused identifiers of one action. */
@Command(name = "top", mixinStandardHelpOptions = true,
    description = "Prints the identifiers of one action with the most refusals, most first.")
public final class TopCommand implements Callable<Integer>
{
    @Spec
    private CommandSpec spec;

    @Mixin
    private FileOption fileOption;

    @Option(names = "--action", required = true, paramLabel = "ACTION", converter = ActionConverter.class,
        description = "The action: auth, dashboard_auth, dashboard_api, publish, subscribe.")
    private Action action;

    @Option(names = "-n", paramLabel = "N", defaultValue = "20", description = "How many (default ${DEFAULT-VALUE}).")
    private long n;

    @Option(names = "--json", description = "One JSON array of {identifier, identifierCut, action, blocked} " +
        "(identifierCut: the identifier was longer than the label the table keeps).")
    private boolean json;

    @Override
    public Integer call()
    {
        final List<BlockedCount> top;
        try (FloodgateReader reader = TableFiles.openReader(fileOption.file()))
        {
            top = TableReading.read(reader, action, n).top();
        }
        final PrintWriter out = spec.commandLine().getOut();
        if (json)
        {
            final Json doc = new Json().beginArray();
            for (final BlockedCount entry : top)
            {
                doc.beginObject().field("identifier", entry.label()).field("identifierCut", entry.labelCut())
                    .field("action", ActionConverter.name(entry.action())).field("blocked", entry.blocked()).endObject();
            }
            out.println(doc.endArray());
        }
        else
        {
            print(out, top);
        }
        out.flush();
        return ExitCode.OK;
    }

    /**
     * @param out where.
     * @param top blocked counters, most first.
     */
    public static void print(final PrintWriter out, final List<BlockedCount> top)
    {
        if (top.isEmpty())
        {
            out.println("no refusals recorded");
            return;
        }
        final TextTable table = new TextTable(new String[] {"#", "REFUSED", "ACTION", "IDENTIFIER"},
            new boolean[] {true, true, false, false});
        int rank = 1;
        for (final BlockedCount entry : top)
        {
            table.row(Integer.toString(rank++), String.format("%,d", entry.blocked()),
                ActionConverter.name(entry.action()), DumpCommand.identifier(entry.label(), entry.labelCut()));
        }
        table.print(out);
    }
}
