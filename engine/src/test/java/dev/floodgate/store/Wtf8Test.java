package dev.floodgate.store;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Labels keep lone surrogates: what is encoded decodes to the same text, and anything else reads as UTF-8 does. */
class Wtf8Test
{
    @Test
    void decodesWhatItEncodedLoneSurrogatesIncluded()
    {
        for (final String text : List.of("", "?", "a\uD800b", "\uDC00", "\uDBFF\uDFFF", "\uDC00\uD800", "x\uD800",
            "\uD83D\uDE00\uD800?", "ü北京\uDFFF", "\u0000\uD7FF\uE000"))
        {
            assertEquals(text, Wtf8.decode(Wtf8.encode(text)), "round trip of " + text.chars().boxed().toList());
        }
    }

    @Test
    void isUtf8WhereTheTextHasNoLoneSurrogate()
    {
        final String text = "bjørn-北京-\uD83D\uDE00";
        assertArrayEquals(text.getBytes(StandardCharsets.UTF_8), Wtf8.encode(text));
        final byte[] malformed = {'a', (byte)0xED, (byte)0xA0, 'b', (byte)0xFF};
        assertEquals(new String(malformed, StandardCharsets.UTF_8), Wtf8.decode(malformed),
            "a damaged label reads as plain UTF-8 reads it");
    }
}
