package dev.floodgate.tools.format;

/**
 * Makes attacker-chosen text safe to print on a terminal. Identifiers come from the network (an IP, a user
 * name, a token digest), so a label could hold an ANSI escape that clears the screen or forges output; every
 * control character, backslash and non-printable code point is shown as an escape instead.
 */
public final class Escape
{
    private Escape()
    {
    }

    /**
     * @param text raw text.
     * @return the text with {@code \\}, {@code \t}, {@code \n}, {@code \r}, and {@code \xNN} or {@code \x{NNNN}}
     * for every other control or non-printable code point.
     */
    public static String label(final String text)
    {
        final StringBuilder out = new StringBuilder(text.length() + 8);
        text.codePoints().forEach(cp ->
        {
            if (cp == '\\')
            {
                out.append("\\\\");
            }
            else if (cp == '\t')
            {
                out.append("\\t");
            }
            else if (cp == '\n')
            {
                out.append("\\n");
            }
            else if (cp == '\r')
            {
                out.append("\\r");
            }
            else if (cp < 0x20 || cp == 0x7f)
            {
                out.append(String.format("\\x%02x", cp));
            }
            else if (!isPrintable(cp))
            {
                out.append(cp <= 0xff ? String.format("\\x%02x", cp) : String.format("\\x{%04x}", cp));
            }
            else
            {
                out.appendCodePoint(cp);
            }
        });
        return out.toString();
    }

    private static boolean isPrintable(final int cp)
    {
        final int type = Character.getType(cp);
        return type != Character.CONTROL && type != Character.FORMAT && type != Character.SURROGATE &&
            type != Character.PRIVATE_USE && type != Character.UNASSIGNED && type != Character.LINE_SEPARATOR &&
            type != Character.PARAGRAPH_SEPARATOR;
    }
}
