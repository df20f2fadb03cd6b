package dev.floodgate.tools.format;

/**
 * Whole numbers as an operator types them: ASCII digits, optionally after a '-' (each command's range check then
 * refuses a negative in its own words). Never {@code +5} or another script's digits ({@code ١٠٠}), which
 * {@link Long#parseLong} and picocli's own converters take. Stateless.
 */
public final class WholeNumbers
{
    private WholeNumbers()
    {
    }

    /** @throws NumberFormatException unless {@code text} is ASCII digits (optionally after a '-') that fit. */
    public static long parseLong(final String text)
    {
        requireAsciiDigits(text);
        return Long.parseLong(text);
    }

    /** @throws NumberFormatException unless {@code text} is ASCII digits (optionally after a '-') that fit. */
    public static int parseInt(final String text)
    {
        requireAsciiDigits(text);
        return Integer.parseInt(text);
    }

    private static void requireAsciiDigits(final String text)
    {
        final int start = text != null && text.startsWith("-") ? 1 : 0;
        boolean ok = text != null && text.length() > start;
        for (int i = start; ok && i < text.length(); i++)
        {
            ok = text.charAt(i) >= '0' && text.charAt(i) <= '9';
        }
        if (!ok)
        {
            throw new NumberFormatException("'" + text + "': expected ASCII digits, optionally after a '-'");
        }
    }
}
