package dev.floodgate.tools;

import dev.floodgate.FloodgateFileException;
import dev.floodgate.TableBusyException;
import dev.floodgate.tools.command.BenchCommand;
import dev.floodgate.tools.command.DemoCommand;
import dev.floodgate.tools.command.DumpCommand;
import dev.floodgate.tools.command.HelpCommand;
import dev.floodgate.tools.command.PolicyCommand;
import dev.floodgate.tools.command.ResetCommand;
import dev.floodgate.tools.command.StatsCommand;
import dev.floodgate.tools.command.TopCommand;
import dev.floodgate.tools.command.WatchCommand;
import dev.floodgate.tools.format.WholeNumbers;
import dev.floodgate.tools.load.WorkerCommand;
import dev.floodgate.tools.table.TableFiles;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.ScopeType;

import java.io.PrintWriter;
import java.util.Map;

/**
 * The {@code floodgate} command: inspect, reset, demonstrate and load a shared Floodgate table.
 *
 * <p>Exit codes ({@link ExitCode}): 0 success, 1 a refused operation, 2 a usage error, 3 a missing, unreadable
 * or foreign file. Expected failures print one line on standard error, never a stack trace.
 */
@Command(name = "floodgate", mixinStandardHelpOptions = true, version = "floodgate 0.1.0",
    description = "Inspects and exercises the shared-memory rate-limit table that the brokers on this host map.",
    subcommands = {DumpCommand.class, StatsCommand.class, TopCommand.class, ResetCommand.class,
        WatchCommand.class, PolicyCommand.class, DemoCommand.class, BenchCommand.class, WorkerCommand.class,
        HelpCommand.class},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:success", "1:refused operation: not writable (the table, its lock file or their directory), table busy, no " +
            "policy yet, or a demo/bench total that misses its quota",
        "2:usage error", "3:missing, unreadable or foreign file"})
public final class FloodgateCli implements Runnable
{
    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Option(names = "--verbose", scope = ScopeType.INHERIT,
        description = "Also print the engine's log messages on standard error (hidden otherwise).")
    private boolean verbose;

    static
    {
        if (System.getProperty("chronicle.analytics.disable") == null)
        {
            System.setProperty("chronicle.analytics.disable", "true");
        }
    }

    @Override
    public void run()
    {
        throw new CommandLine.ParameterException(spec.commandLine(), "missing command: expected one of " +
            commands(spec.commandLine()));
    }

    /** @return the commands a user may type, as the usage lists them. */
    private static String commands(final CommandLine commandLine)
    {
        return String.join(", ", commandLine.getSubcommands().entrySet().stream()
            .filter(sub -> !sub.getValue().getCommandSpec().usageMessage().hidden()).map(Map.Entry::getKey)
            .toList());
    }

    /**
     * @param args the command line.
     */
    public static void main(final String[] args)
    {
        // UTF-8 whatever the locale: identifiers round-trip through --json and dump only so (JSON is UTF-8 by its
        // RFC); with the platform charset of a container without LANG, "bjørn" printed as "bj?rn" (found by review)
        final PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(
            new java.io.FileOutputStream(java.io.FileDescriptor.out), java.nio.charset.StandardCharsets.UTF_8), true);
        final PrintWriter err = new PrintWriter(new java.io.OutputStreamWriter(
            new java.io.FileOutputStream(java.io.FileDescriptor.err), java.nio.charset.StandardCharsets.UTF_8), true);
        final int code = run(out, err, args);
        out.flush();
        err.flush();
        System.exit(code);
    }

    /**
     * Runs the CLI in this JVM with the given writers, as tests do.
     *
     * @param out  standard output.
     * @param err  standard error.
     * @param args the command line.
     * @return the exit code.
     */
    public static int run(final PrintWriter out, final PrintWriter err, final String... args)
    {
        final CommandLine commandLine = newCommandLine();
        commandLine.setOut(out);
        commandLine.setErr(err);
        final int code = commandLine.execute(args);
        out.flush();
        err.flush();
        return code;
    }

    private static boolean verbose(final ParseResult parseResult)
    {
        for (ParseResult command = parseResult; command != null; command = command.subcommand())
        {
            if (command.hasMatchedOption("--verbose"))
            {
                return true;
            }
        }
        return false;
    }

    /**
     * Refuses an argument no command took, as picocli does unless help was asked for: there a help request
     * ({@code --help}, or the {@code help} command) won over it, so {@code help --bogus} printed the top command's
     * help, exit 0, where {@code dump --bogus} is a usage error naming it.
     */
    private static void requireNoStrayArguments(final ParseResult parseResult)
    {
        for (ParseResult command = parseResult; command != null; command = command.subcommand())
        {
            final CommandLine commandLine = command.commandSpec().commandLine();
            if (!command.unmatched().isEmpty() && !commandLine.isUnmatchedArgumentsAllowed())
            {
                throw new CommandLine.UnmatchedArgumentException(commandLine, command.unmatched());
            }
        }
    }

    /**
     * Makes every {@code int} and {@code long} option and parameter take ASCII digits only (optionally after a
     * '-', which each command's range check refuses in its own words): picocli's converters take {@code +5} and
     * other scripts' digits. So a command's whole-number options are {@code long} fields, however small their
     * bounds: an {@code int} field refused a value past the {@code int} range here, naming that range rather than
     * the option's own bounds, which only the command's check knows ({@code --threads 3000000000}).
     */
    private static void acceptAsciiWholeNumbersOnly(final CommandLine commandLine)
    {
        final CommandLine.ITypeConverter<Integer> ints = value -> wholeNumber(value, true).intValue();
        final CommandLine.ITypeConverter<Long> longs = value -> wholeNumber(value, false);
        commandLine.registerConverter(Integer.class, ints);
        commandLine.registerConverter(int.class, ints);
        commandLine.registerConverter(Long.class, longs);
        commandLine.registerConverter(long.class, longs);
    }

    private static Long wholeNumber(final String value, final boolean isInt)
    {
        try
        {
            return isInt ? (long) WholeNumbers.parseInt(value) : WholeNumbers.parseLong(value);
        }
        catch (final NumberFormatException ex)
        {
            throw new CommandLine.TypeConversionException("'" + value + "': expected a whole number in ASCII " +
                "digits" + (isInt ? " from " + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE : ""));
        }
    }

    /**
     * Gives every command the top command's version: each offers {@code -V, --version} (the standard help
     * options), which printed an empty line where the command declared no version of its own.
     */
    private static void shareVersion(final CommandLine commandLine, final String[] version)
    {
        for (final CommandLine sub : commandLine.getSubcommands().values())
        {
            sub.getCommandSpec().version(version);
            shareVersion(sub, version);
        }
    }

    /**
     * @return where a usage error's reader learns more: the command's {@code --help}, when it has one (the hidden
     * {@code worker}, internal to demo and bench, has none: its errors pointed at it).
     */
    private static String seeHelp(final CommandLine command)
    {
        final String name = command.getCommandSpec().qualifiedName();
        return command.getCommandSpec().optionsMap().containsKey("--help") ? " (see " + name + " --help)" : "";
    }

    /** @return the configured command line: exit codes and one-line error messages. */
    public static CommandLine newCommandLine()
    {
        final CommandLine commandLine = new CommandLine(new FloodgateCli());
        shareVersion(commandLine, commandLine.getCommandSpec().version());
        commandLine.setCaseInsensitiveEnumValuesAllowed(true);
        acceptAsciiWholeNumbersOnly(commandLine);
        HelpLayout.apply(commandLine);
        commandLine.setExecutionStrategy(parseResult ->
        {
            RowCount.check(parseResult);
            requireNoStrayArguments(parseResult);
            try (Logs logs = Logs.during(verbose(parseResult)))
            {
                return new CommandLine.RunLast().execute(parseResult);
            }
        });
        commandLine.setExitCodeExceptionMapper(ex -> ex instanceof CliException cli ? cli.exitCode() :
            ex instanceof CommandLine.ParameterException ? ExitCode.USAGE : ExitCode.REFUSED);
        commandLine.setParameterExceptionHandler((ex, args) ->
        {
            final CommandLine failed = ex.getCommandLine();
            // a mistyped command: say which there are, as the bare command does
            final String commands = ex instanceof CommandLine.UnmatchedArgumentException &&
                !failed.getSubcommands().isEmpty() && failed.getParseResult().subcommand() == null ?
                "; expected one of " + commands(failed) : "";
            failed.getErr().println(failed.getCommandSpec().qualifiedName() + ": " + ex.getMessage() + commands +
                seeHelp(failed));
            failed.getErr().flush();
            return ExitCode.USAGE;
        });
        commandLine.setExecutionExceptionHandler((ex, failed, parseResult) ->
        {
            final PrintWriter err = failed.getErr();
            final String name = failed.getCommandSpec().qualifiedName();
            final int code;
            if (ex instanceof CliException cli)
            {
                err.println(name + ": " + cli.getMessage());
                code = cli.exitCode();
            }
            else if (ex instanceof FloodgateFileException file)
            {
                final CliException problem = TableFiles.fileProblem(file);
                err.println(name + ": " + problem.getMessage());
                code = problem.exitCode();
            }
            else if (ex instanceof TableBusyException busy)
            {
                // a live process held the table guard past the tool's timeout (e.g. it is stopped): say so, retryable
                err.println(name + ": table busy, try again: " + busy.getMessage());
                code = ExitCode.REFUSED;
            }
            else if (ex instanceof CommandLine.ParameterException usage)
            {
                err.println(name + ": " + usage.getMessage() + seeHelp(failed));
                code = ExitCode.USAGE;
            }
            else
            {
                err.println(name + ": unexpected failure, please report it: " + ex);
                ex.printStackTrace(err);
                code = ExitCode.REFUSED;
            }
            err.flush();
            return code;
        });
        return commandLine;
    }
}
