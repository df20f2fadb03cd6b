package dev.floodgate.tools.format;

/**
 * How many terminal columns text takes: East Asian wide and fullwidth characters (CJK, Hangul, most emoji)
 * take two, combining marks and format characters none, terminal colour codes none, everything else one.
 * Java has no {@code wcwidth}; these are its wide ranges.
 */
public final class DisplayWidth
{
    private static final int[][] WIDE = {
        {0x1100, 0x115F}, {0x231A, 0x231B}, {0x2329, 0x232A}, {0x23E9, 0x23EC}, {0x23F0, 0x23F0},
        {0x23F3, 0x23F3}, {0x25FD, 0x25FE}, {0x2614, 0x2615}, {0x2648, 0x2653}, {0x267F, 0x267F},
        {0x2693, 0x2693}, {0x26A1, 0x26A1}, {0x26AA, 0x26AB}, {0x26BD, 0x26BE}, {0x26C4, 0x26C5},
        {0x26CE, 0x26CE}, {0x26D4, 0x26D4}, {0x26EA, 0x26EA}, {0x26F2, 0x26F3}, {0x26F5, 0x26F5},
        {0x26FA, 0x26FA}, {0x26FD, 0x26FD}, {0x2705, 0x2705}, {0x270A, 0x270B}, {0x2728, 0x2728},
        {0x274C, 0x274C}, {0x274E, 0x274E}, {0x2753, 0x2755}, {0x2757, 0x2757}, {0x2795, 0x2797},
        {0x27B0, 0x27B0}, {0x27BF, 0x27BF}, {0x2B1B, 0x2B1C}, {0x2B50, 0x2B50}, {0x2B55, 0x2B55},
        {0x2E80, 0x303E}, {0x3041, 0x33FF}, {0x3400, 0x4DBF}, {0x4E00, 0x9FFF}, {0xA000, 0xA4CF},
        {0xA960, 0xA97F}, {0xAC00, 0xD7A3}, {0xF900, 0xFAFF}, {0xFE10, 0xFE19}, {0xFE30, 0xFE6F},
        {0xFF00, 0xFF60}, {0xFFE0, 0xFFE6}, {0x16FE0, 0x16FE4}, {0x17000, 0x18CFF}, {0x1B000, 0x1B2FF},
        {0x1F004, 0x1F004}, {0x1F0CF, 0x1F0CF}, {0x1F18E, 0x1F18E}, {0x1F191, 0x1F19A}, {0x1F200, 0x1F2FF},
        {0x1F300, 0x1F320}, {0x1F32D, 0x1F335}, {0x1F337, 0x1F37C}, {0x1F37E, 0x1F393}, {0x1F3A0, 0x1F3CA},
        {0x1F3CF, 0x1F3D3}, {0x1F3E0, 0x1F3F0}, {0x1F3F4, 0x1F3F4}, {0x1F3F8, 0x1F43E}, {0x1F440, 0x1F440},
        {0x1F442, 0x1F4FC}, {0x1F4FF, 0x1F53D}, {0x1F54B, 0x1F54E}, {0x1F550, 0x1F567}, {0x1F57A, 0x1F57A},
        {0x1F595, 0x1F596}, {0x1F5A4, 0x1F5A4}, {0x1F5FB, 0x1F64F}, {0x1F680, 0x1F6C5}, {0x1F6CC, 0x1F6CC},
        {0x1F6D0, 0x1F6D2}, {0x1F6D5, 0x1F6D7}, {0x1F6EB, 0x1F6EC}, {0x1F6F4, 0x1F6FC}, {0x1F7E0, 0x1F7EB},
        {0x1F90C, 0x1F93A}, {0x1F93C, 0x1F945}, {0x1F947, 0x1F9FF}, {0x1FA70, 0x1FAFF}, {0x20000, 0x2FFFD},
        {0x30000, 0x3FFFD}};

    private DisplayWidth()
    {
    }

    /**
     * @param text text to print; may hold ANSI colour codes ({@code ESC [ ... m}).
     * @return the columns it takes on a terminal.
     */
    public static int of(final CharSequence text)
    {
        int width = 0;
        int i = 0;
        while (i < text.length())
        {
            final int cp = Character.codePointAt(text, i);
            if (cp == 0x1B && i + 1 < text.length() && text.charAt(i + 1) == '[')
            {
                int end = i + 2;
                while (end < text.length() && (Character.isDigit(text.charAt(end)) || text.charAt(end) == ';'))
                {
                    end++;
                }
                if (end < text.length() && text.charAt(end) == 'm')
                {
                    i = end + 1;
                    continue;
                }
            }
            width += of(cp);
            i += Character.charCount(cp);
        }
        return width;
    }

    /** @param cp a code point. @return the columns it takes: 0, 1 or 2. */
    public static int of(final int cp)
    {
        final int type = Character.getType(cp);
        if (type == Character.NON_SPACING_MARK || type == Character.ENCLOSING_MARK || type == Character.FORMAT ||
            cp == 0x200B)
        {
            return 0;
        }
        int lo = 0;
        int hi = WIDE.length - 1;
        while (lo <= hi)
        {
            final int mid = (lo + hi) >>> 1;
            if (cp < WIDE[mid][0])
            {
                hi = mid - 1;
            }
            else if (cp > WIDE[mid][1])
            {
                lo = mid + 1;
            }
            else
            {
                return 2;
            }
        }
        return 1;
    }
}
