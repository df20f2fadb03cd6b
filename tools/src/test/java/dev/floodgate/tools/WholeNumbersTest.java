package dev.floodgate.tools;

import dev.floodgate.tools.format.Durations;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A number on the command line is ASCII digits: not {@code +5}, not another script's digits. */
@Timeout(30)
class WholeNumbersTest
{
    @Test
    void aCountOptionRefusesAPlusSignAndNonAsciiDigitsNamingTheOptionAndTheValue()
    {
        for (final String value : new String[] {"+5", "\u0665", "\uff15"})
        {
            final Cli.Result top = Cli.run("top", "--action", "auth", "-n", value);
            assertEquals(2, top.code(), top::toString);
            assertTrue(top.err().startsWith("floodgate top: Invalid value for option '-n': '" + value +
                "': expected a whole number in ASCII digits"), top::toString);
            assertFalse(top.err().contains("2147483647"), "-n's range is not int's: " + top);
        }
    }

    @Test
    void aLongOptionRefusesAPlusSign()
    {
        final Cli.Result watch = Cli.run("watch", "--iterations", "+1");
        assertEquals(2, watch.code(), watch::toString);
        assertTrue(watch.err().startsWith("floodgate watch: Invalid value for option '--iterations': '+1': " +
            "expected a whole number in ASCII digits"), watch::toString);
    }

    @Test
    void aDurationRefusesAPlusSignAndNonAsciiDigits()
    {
        assertEquals(5_000_000_000L, Durations.parse("5s"));
        for (final String text : new String[] {"+5s", "\u0665s", "+500ms", "+5"})
        {
            assertTrue(assertThrows(IllegalArgumentException.class, () -> Durations.parse(text)).getMessage()
                .startsWith("'" + text + "': expected a positive duration"), text);
        }
    }
}
