package dev.floodgate.tools;

import dev.floodgate.tools.format.DisplayWidth;
import picocli.CommandLine;
import picocli.CommandLine.Model.UsageMessageSpec;

import java.util.Map;
import java.util.Set;

/**
 * Wraps help text at spaces only. Picocli wraps where {@link java.text.BreakIterator} allows, which includes
 * after a dot or a hyphen, so it printed {@code publish.} and {@code limit=1000} on two lines: text a user
 * copies must stay whole. Picocli lays the help out on one very wide line per item, and this wraps each line
 * to {@link #WIDTH} columns, indenting continuations as picocli would.
 */
final class HelpLayout
{
    /** Columns of the help text. */
    static final int WIDTH = 80;
    /** Wide enough that picocli never wraps. */
    private static final int UNWRAPPED = 10_000;
    /** Sections laid out as a table: an item, then its description in a column. */
    private static final Set<String> TABLES = Set.of(UsageMessageSpec.SECTION_KEY_OPTION_LIST,
        UsageMessageSpec.SECTION_KEY_PARAMETER_LIST, UsageMessageSpec.SECTION_KEY_COMMAND_LIST,
        UsageMessageSpec.SECTION_KEY_EXIT_CODE_LIST);

    private HelpLayout()
    {
    }

    /** @param root the command line whose help, and every subcommand's, to wrap at spaces. */
    static void apply(final CommandLine root)
    {
        root.setUsageHelpWidth(UNWRAPPED);
        applyTo(root);
    }

    private static void applyTo(final CommandLine commandLine)
    {
        final Map<String, CommandLine.IHelpSectionRenderer> sections = commandLine.getHelpSectionMap();
        for (final Map.Entry<String, CommandLine.IHelpSectionRenderer> section : sections.entrySet())
        {
            final String key = section.getKey();
            final CommandLine.IHelpSectionRenderer original = section.getValue();
            section.setValue(help ->
            {
                // the synopsis follows its heading ("Usage: ") on the same line, and continues under the arguments
                final boolean synopsis = key.equals(UsageMessageSpec.SECTION_KEY_SYNOPSIS);
                final String heading = synopsis ? help.synopsisHeading() : "";
                final String synopsisStart = heading + help.commandSpec().qualifiedName() + " ";
                final StringBuilder out = new StringBuilder();
                final String[] lines = original.render(help).split("\n", -1);
                for (int i = 0; i < lines.length; i++)
                {
                    final String text = i == 0 ? heading + lines[i] : lines[i];
                    final int indent = synopsis && text.startsWith(synopsisStart) ? synopsisStart.length() :
                        TABLES.contains(key) ? tableIndent(text) : leadingSpaces(text);
                    wrap(out, text, indent);
                    out.append('\n');
                }
                out.setLength(out.length() - 1);
                return out.substring(heading.length());
            });
        }
        commandLine.setHelpSectionMap(sections);
        for (final CommandLine sub : commandLine.getSubcommands().values())
        {
            applyTo(sub);
        }
    }

    /** Breaks {@code line} at spaces into lines of at most {@link #WIDTH} columns where its words allow. */
    private static void wrap(final StringBuilder out, final String line, final int indent)
    {
        String rest = line;
        boolean first = true;
        while (DisplayWidth.of(rest) > WIDTH)
        {
            final int start = first ? leadingSpaces(rest) : indent;
            int cut = -1;
            for (int i = rest.indexOf(' ', start); i >= 0; i = rest.indexOf(' ', i + 1))
            {
                if (DisplayWidth.of(rest.substring(0, i)) > WIDTH && cut >= 0)
                {
                    break;
                }
                if (i > start && rest.charAt(i - 1) != ' ')
                {
                    cut = i; // the last word end that fits, or the first one when a word is wider than a line
                }
            }
            if (cut < 0)
            {
                break;
            }
            out.append(rest, 0, cut).append('\n');
            rest = " ".repeat(indent) + rest.substring(cut).stripLeading();
            first = false;
        }
        out.append(rest);
    }

    /** @return where wrapped text of a table row goes: its description column plus two, as picocli indents. */
    private static int tableIndent(final String line)
    {
        final int lead = leadingSpaces(line);
        final int gap = line.indexOf("  ", lead);
        if (gap < 0)
        {
            return lead + 2;
        }
        int column = gap;
        while (column < line.length() && line.charAt(column) == ' ')
        {
            column++;
        }
        return column < line.length() ? column + 2 : lead + 2;
    }

    private static int leadingSpaces(final String line)
    {
        int i = 0;
        while (i < line.length() && line.charAt(i) == ' ')
        {
            i++;
        }
        return i;
    }
}
