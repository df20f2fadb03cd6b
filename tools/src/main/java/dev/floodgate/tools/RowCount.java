package dev.floodgate.tools;

import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * {@code -n N} of {@code top} and {@code watch}: how many identifiers to show. 0 would show an empty list that
 * reads as "no refusals recorded", so it is a usage error, checked here for every command that takes it.
 */
final class RowCount
{
    private static final String OPTION = "-n";

    private RowCount()
    {
    }

    /**
     * @param parseResult the parsed command line.
     * @throws ParameterException when a command's {@code -n} is below 1.
     */
    static void check(final ParseResult parseResult)
    {
        for (ParseResult command = parseResult; command != null; command = command.subcommand())
        {
            if (command.hasMatchedOption(OPTION))
            {
                final Object value = command.matchedOptionValue(OPTION, null);
                if (value instanceof Number n && n.longValue() < 1)
                {
                    throw new ParameterException(command.commandSpec().commandLine(),
                        OPTION + " " + n + ": expected 1 or more (how many to show)");
                }
            }
        }
    }
}
