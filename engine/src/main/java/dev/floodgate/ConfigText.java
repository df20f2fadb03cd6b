package dev.floodgate;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * One configuration value's text to its type, for {@link ConfigParser} and the keys' own readers: each error names
 * the key, the value as given and what was expected. Which keys take which values is {@link ConfigKeys}'s.
 * Stateless.
 */
final class ConfigText
{
    private ConfigText()
    {
    }

    /**
     * @return {@code value} as a path; relative ones are refused by the build, naming them.
     * @throws IllegalArgumentException naming the key, the value and why it is no path (a NUL character).
     */
    static Path parseFile(final String key, final String value)
    {
        try
        {
            return Path.of(value);
        }
        catch (final InvalidPathException ex)
        {
            throw new IllegalArgumentException(key + "='" + value + "': expected a path (" + ex.getReason() + ")", ex);
        }
    }

    /**
     * @return {@code value} (trimmed) as ASCII digits, optionally after a '-' (no key takes a negative number,
     * but the range check names what it does take, in the words it uses for any other out-of-range value);
     * never {@code +100} or another script's digits, which {@link Long#parseLong} would take.
     * @throws IllegalArgumentException naming the key, the value and {@code expected}.
     */
    static long parseLong(final String key, final String value, final String expected)
    {
        final String text = value.trim();
        try
        {
            if (!isAsciiWholeNumber(text))
            {
                throw new NumberFormatException("not ASCII digits");
            }
            return Long.parseLong(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(key + "='" + value + "': expected " + expected, ex);
        }
    }

    /** @return whether {@code text} is ASCII digits 0-9, at least one, optionally after a '-'. */
    static boolean isAsciiWholeNumber(final String text)
    {
        final int start = text.startsWith("-") ? 1 : 0;
        if (text.length() == start)
        {
            return false;
        }
        for (int i = start; i < text.length(); i++)
        {
            if (text.charAt(i) < '0' || text.charAt(i) > '9')
            {
                return false;
            }
        }
        return true;
    }

    static boolean parseShadow(final String key, final String value)
    {
        return parseChoice(key, value, "enforce", "shadow", false);
    }

    static boolean parseUnreachable(final String key, final String value)
    {
        return parseChoice(key, value, "refuse", "admit", false);
    }

    static boolean parseBoolean(final String key, final String value)
    {
        return parseChoice(key, value, "true", "false", true);
    }

    /**
     * @return {@code firstMeansTrue} for {@code first}, its opposite for {@code second} (any case, trimmed); else
     * an error naming both, in that order.
     */
    static boolean parseChoice(final String key, final String value, final String first, final String second,
        final boolean firstMeansTrue)
    {
        final String v = value.trim().toLowerCase(Locale.ROOT);
        if (v.equals(first) || v.equals(second))
        {
            return v.equals(first) == firstMeansTrue;
        }
        throw new IllegalArgumentException(key + "='" + value + "': expected " + first + " or " + second);
    }
}
