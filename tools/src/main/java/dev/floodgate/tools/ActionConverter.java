package dev.floodgate.tools;

import dev.floodgate.Action;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Parses an action as operators type it ({@code auth}, {@code dashboard-api}); an unknown name is a usage error. */
public final class ActionConverter implements ITypeConverter<Action>
{
    @Override
    public Action convert(final String value)
    {
        try
        {
            return Action.parse(value);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new TypeConversionException(ex.getMessage());
        }
    }

    /**
     * @param action an action.
     * @return its name as the CLI prints it, e.g. {@code dashboard_api}.
     */
    public static String name(final Action action)
    {
        return action.configPrefix();
    }
}
