package dev.floodgate.store;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * UTF-16 text as bytes without loss: UTF-8, except that a lone surrogate (an unpaired UTF-16 char, which a client
 * may send and a broker pass on as an identifier) is written as its own three bytes, as WTF-8 does. Plain UTF-8 has
 * no form for it and writes '?', which makes "a", U+D800, "b" and {@code "a?b"} one string: one Redis key for the
 * cluster's bucket, and one label in {@code dump} and {@code top}. Used for both, so they agree. Stateless.
 */
public final class Wtf8
{
    private static final int SURROGATE_LEAD = 0xED; // the lead byte of U+D000..U+DFFF

    private Wtf8()
    {
    }

    /** @return {@code s} as UTF-8, with each unpaired surrogate as its three-byte form. */
    public static byte[] encode(final CharSequence s)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream(s.length() + 8);
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1)))
            {
                final int cp = Character.toCodePoint(c, s.charAt(++i));
                out.write(0xF0 | cp >>> 18);
                out.write(0x80 | cp >>> 12 & 0x3F);
                out.write(0x80 | cp >>> 6 & 0x3F);
                out.write(0x80 | cp & 0x3F);
            }
            else if (c < 0x80)
            {
                out.write(c);
            }
            else if (c < 0x800)
            {
                out.write(0xC0 | c >>> 6);
                out.write(0x80 | c & 0x3F);
            }
            else
            {
                out.write(0xE0 | c >>> 12);
                out.write(0x80 | c >>> 6 & 0x3F);
                out.write(0x80 | c & 0x3F);
            }
        }
        return out.toByteArray();
    }

    /**
     * @return what {@link #encode} wrote, as the text it encoded: each surrogate's three-byte form as that char, the
     * rest decoded as UTF-8 (a malformed byte, as in a label written while being read, as U+FFFD).
     */
    public static String decode(final byte[] bytes)
    {
        StringBuilder out = null;
        int from = 0;
        for (int i = 0; i + 2 < bytes.length; i++)
        {
            // 0xED is only ever a lead byte, and with a second byte of 0xA0..0xBF it starts a surrogate's form
            if ((bytes[i] & 0xFF) == SURROGATE_LEAD && (bytes[i + 1] & 0xE0) == 0xA0 && (bytes[i + 2] & 0xC0) == 0x80)
            {
                if (out == null)
                {
                    out = new StringBuilder(bytes.length);
                }
                out.append(new String(bytes, from, i - from, StandardCharsets.UTF_8));
                out.append((char)(0xD000 | (bytes[i + 1] & 0x3F) << 6 | bytes[i + 2] & 0x3F));
                i += 2;
                from = i + 1;
            }
        }
        if (out == null)
        {
            return new String(bytes, StandardCharsets.UTF_8);
        }
        return out.append(new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8)).toString();
    }
}
