package dev.floodgate.tools;

import dev.floodgate.tools.format.Escape;
import dev.floodgate.tools.format.Json;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Identifiers are attacker-chosen: what reaches a terminal or a JSON consumer must be inert. */
class EscapeTest
{
    @Test
    void escapesControlAndInvisibleCharacters()
    {
        assertEquals("\\x1b[31mred\\x1b[0m", Escape.label("\u001b[31mred\u001b[0m"));
        assertEquals("a\\tb\\nc\\rd\\\\e\\x00\\x7f", Escape.label("a\tb\nc\rd\\e\u0000\u007f"));
        assertEquals("\\x85\\x{202e}evil\\x{200b}", Escape.label("\u0085\u202eevil\u200b"));
        assertEquals("bjørn 北京 203.0.113.9", Escape.label("bjørn 北京 203.0.113.9"));
    }

    @Test
    void jsonStringsAreEscaped()
    {
        assertEquals("{\"a\":\"\\u001b\\\"\\\\\\n\",\"b\":[1,2.5],\"c\":true,\"d\":null}",
            new Json().beginObject().field("a", "\u001b\"\\\n").name("b").beginArray().value(1).value(2.5)
                .endArray().field("c", true).field("d", (String)null).endObject().toString());
    }
}
