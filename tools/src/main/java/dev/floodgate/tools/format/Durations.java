package dev.floodgate.tools.format;

/** Short human durations: {@code 850ns}, {@code 12.3ms}, {@code 4.0s}, {@code 3m12s}, {@code 2h05m}, {@code 3d04h}. */
public final class Durations
{
    private static final long US = 1_000L;
    private static final long MS = 1_000_000L;
    private static final long S = 1_000_000_000L;
    private static final long H = 3_600 * S;

    /** What {@link #parse} takes, in the words of its error and of every duration option's help. */
    public static final String FORMS = "a whole number of ms, s, m, h or d (a bare number: seconds)";

    private Durations()
    {
    }

    /**
     * @param nanos a duration; negative durations print with a minus sign.
     * @return the duration in its largest sensible unit.
     */
    public static String nanos(final long nanos)
    {
        if (nanos < 0)
        {
            return "-" + nanos(-nanos);
        }
        if (nanos < US)
        {
            return nanos + "ns";
        }
        if (nanos < MS)
        {
            return String.format("%.1fus", nanos / (double)US);
        }
        if (nanos < S)
        {
            return String.format("%.1fms", nanos / (double)MS);
        }
        if (nanos < 60 * S)
        {
            return String.format("%.1fs", nanos / (double)S);
        }
        final long seconds = nanos / S;
        if (seconds < 3600)
        {
            return String.format("%dm%02ds", seconds / 60, seconds % 60);
        }
        if (seconds < 86_400)
        {
            return String.format("%dh%02dm", seconds / 3600, seconds % 3600 / 60);
        }
        return String.format("%dd%02dh", seconds / 86_400, seconds % 86_400 / 3600);
    }

    /**
     * Parses a duration as an operator types it ({@link #FORMS}): {@code 5}, {@code 5s}, {@code 500ms}, {@code 2m},
     * {@code 1h}, {@code 7d}; any case, blanks around it ignored.
     *
     * @param text the duration; a bare number means seconds.
     * @return nanoseconds, at least 1 ms.
     * @throws IllegalArgumentException naming the text and the accepted forms.
     */
    public static long parse(final String text)
    {
        final String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        try
        {
            final long nanos;
            if (t.endsWith("ms"))
            {
                nanos = Math.multiplyExact(WholeNumbers.parseLong(t.substring(0, t.length() - 2)), MS);
            }
            else if (t.endsWith("s"))
            {
                nanos = Math.multiplyExact(WholeNumbers.parseLong(t.substring(0, t.length() - 1)), S);
            }
            else if (t.endsWith("m"))
            {
                nanos = Math.multiplyExact(WholeNumbers.parseLong(t.substring(0, t.length() - 1)), 60 * S);
            }
            else if (t.endsWith("h"))
            {
                nanos = Math.multiplyExact(WholeNumbers.parseLong(t.substring(0, t.length() - 1)), H);
            }
            else if (t.endsWith("d"))
            {
                nanos = Math.multiplyExact(WholeNumbers.parseLong(t.substring(0, t.length() - 1)), 24 * H);
            }
            else
            {
                nanos = Math.multiplyExact(WholeNumbers.parseLong(t), S);
            }
            if (nanos <= 0)
            {
                throw new NumberFormatException();
            }
            return nanos;
        }
        catch (final NumberFormatException | ArithmeticException ex)
        {
            throw new IllegalArgumentException("'" + text + "': expected a positive duration, " + FORMS +
                ", e.g. 500ms, 5s, 2m or 1h");
        }
    }
}
