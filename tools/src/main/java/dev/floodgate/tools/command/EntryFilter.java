package dev.floodgate.tools.command;

import dev.floodgate.Action;
import dev.floodgate.tools.ActionConverter;
import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.TableEntry;
import picocli.CommandLine.Option;

/** The {@code --action}, {@code --identifier} and {@code --kind} filters of {@code dump}. */
public final class EntryFilter
{
    @Option(names = "--action", paramLabel = "ACTION", converter = ActionConverter.class,
        description = "Only this action: auth, dashboard_auth, dashboard_api, publish, subscribe.")
    private Action action;

    @Option(names = "--identifier", paramLabel = "ID", converter = IdentifierConverter.class,
        description = "Only this identifier (exact; an identifier longer than the stored label matches its label).")
    private String identifier;

    @Option(names = "--kind", paramLabel = "KIND", converter = KindConverter.class,
        description = "Only this kind: bucket, window, blocked, lease.")
    private EntryKind kind;

    /**
     * @param entry an entry.
     * @return true when it passes every filter given.
     */
    public boolean test(final TableEntry entry)
    {
        return (action == null || entry.action() == action) && (kind == null || entry.kind() == kind) &&
            (identifier == null || identifier.equals(entry.label()) ||
            entry.labelCut() && identifier.startsWith(entry.label()));
    }

    /**
     * Refuses an empty {@code --identifier}: no identifier is empty (the engine refuses one), so it would match
     * nothing and read as "no state" (a script's unset {@code "$ID"}).
     */
    public static final class IdentifierConverter implements picocli.CommandLine.ITypeConverter<String>
    {
        @Override
        public String convert(final String value)
        {
            if (value.isEmpty())
            {
                throw new picocli.CommandLine.TypeConversionException("'': expected an identifier (at least one " +
                    "character)");
            }
            return value;
        }
    }

    /** Parses {@code --kind}; an unknown kind is a usage error. */
    public static final class KindConverter implements picocli.CommandLine.ITypeConverter<EntryKind>
    {
        @Override
        public EntryKind convert(final String value)
        {
            try
            {
                return EntryKind.parse(value);
            }
            catch (final IllegalArgumentException ex)
            {
                throw new picocli.CommandLine.TypeConversionException(ex.getMessage());
            }
        }
    }
}
