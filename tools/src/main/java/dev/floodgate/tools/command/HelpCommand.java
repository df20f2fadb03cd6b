package dev.floodgate.tools.command;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code help [COMMAND...]}: the help of the command it is under, or of the command the names lead to through
 * its subcommands ({@code help policy set}). Picocli's own help command takes one name and ignores the rest, so
 * {@code help policy set} printed {@code policy}'s help; a name that leads nowhere is a usage error naming it, and
 * so is a hidden command's ({@code worker}, internal to demo and bench: picocli's help showed it).
 */
@Command(name = "help", helpCommand = true,
    description = "Shows a command's help: 'help' alone this command's, 'help COMMAND [SUBCOMMAND...]' that " +
        "command's (e.g. help policy set).")
public final class HelpCommand implements Runnable, CommandLine.IHelpCommandInitializable2
{
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help message and exit.")
    private boolean helpRequested;

    @Parameters(paramLabel = "COMMAND", arity = "0..*",
        description = "The command whose help to show, followed by its subcommand's name if any.")
    private List<String> names = new ArrayList<>();

    private CommandLine self;
    private CommandLine.Help.ColorScheme colors;
    private PrintWriter out;

    @Override
    public void init(final CommandLine helpCommandLine, final CommandLine.Help.ColorScheme colorScheme,
        final PrintWriter outWriter, final PrintWriter errWriter)
    {
        self = helpCommandLine;
        colors = colorScheme;
        out = outWriter;
    }

    @Override
    public void run()
    {
        CommandLine shown = self.getParent();
        for (final String name : names)
        {
            final CommandLine sub = shown.getSubcommands().get(name);
            if (sub == null || sub.getCommandSpec().usageMessage().hidden()) // internal: not offered, not shown
            {
                final List<String> offered = offered(shown);
                throw new ParameterException(shown, offered.isEmpty() ? "no help for '" + name + "': " +
                    shown.getCommandSpec().qualifiedName() + " has no commands" : "no help for '" + name +
                    "': not a command; expected one of " + String.join(", ", offered));
            }
            shown = sub;
        }
        shown.usage(out, colors);
        out.flush();
    }

    /** @return the commands under {@code command} that its usage lists (not hidden ones). */
    private static List<String> offered(final CommandLine command)
    {
        return command.getSubcommands().entrySet().stream()
            .filter(sub -> !sub.getValue().getCommandSpec().usageMessage().hidden()).map(Map.Entry::getKey).toList();
    }
}
