package dev.floodgate.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An identifier comes back from the read commands as the broker gave it, whatever its characters and the host's
 * locale (found by review; both failed before).
 */
class IdentifierRoundTripTest
{
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Path table(final String... identifiers)
    {
        final Path file = dir.resolve("t.map");
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.AUTH, 10, 3_600_000).build()))
        {
            for (final String id : identifiers)
            {
                gate.checkLimit(id, Action.AUTH);
            }
        }
        return file;
    }

    /**
     * An identifier whose 48th char is the high half of a surrogate pair: the stored label ended in '?' (the pair
     * split by a char-count cut, then encoded), so the cut label was no prefix of the identifier: dump --identifier
     * found nothing and --json showed a character the identifier does not have.
     */
    @Test
    void cutLabelEndingInASurrogatePairIsAPrefixAndMatchesItsIdentifier() throws Exception
    {
        final String id = "a".repeat(47) + "\uD83D\uDE00" + "-tail";
        final Path file = table(id);
        final Cli.Result result = Cli.run("dump", "--file", file.toString(), "--json", "--identifier", id);
        assertEquals(0, result.code(), result::toString);
        final JsonNode entries = JSON.readTree(result.out());
        assertEquals(1, entries.size(), "dump --identifier of a checked identifier finds its bucket: " + result);
        final String label = entries.get(0).get("identifier").asText();
        assertTrue(id.startsWith(label), "the cut label '" + label + "' is a prefix of the identifier");
    }

    /**
     * An identifier with a lone surrogate (an unpaired UTF-16 char, which a broker may pass on from a client) was
     * stored with '?' in its label (plain UTF-8 has no form for it), so dump and top showed it as '?', the same as an
     * identifier holding a real '?', and dump --identifier never found it. It shows as an escape, as other
     * characters a terminal cannot print do, and dump's columns after it stay aligned (top prints it last).
     */
    @Test
    void loneSurrogateShowsAsAnEscapeApartFromAQuestionMarkAndKeepsTheColumnsAligned() throws Exception
    {
        final String lone = "a\uD800b";
        final Path file = dir.resolve("t.map");
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.AUTH, 1, 3_600_000).build()))
        {
            for (final String id : new String[] {lone, "a?b", "a-much-longer-identifier"})
            {
                gate.checkLimit(id, Action.AUTH);
                gate.checkLimit(id, Action.AUTH); // refused: a blocked counter, for top
            }
        }
        final Cli.Result dump = Cli.run("dump", "--file", file.toString(), "--kind", "bucket");
        assertEquals(0, dump.code(), dump::toString);
        assertTrue(dump.out().contains("a\\x{d800}b "), dump.out());
        assertTrue(dump.out().contains("a?b "), dump.out());
        assertActionColumnAligned(dump.out());
        final Cli.Result top = Cli.run("top", "--file", file.toString(), "--action", "auth");
        assertEquals(0, top.code(), top::toString);
        assertTrue(top.out().contains("a\\x{d800}b"), top.out());
        assertTrue(top.out().contains("a?b"), top.out());

        final Cli.Result found = Cli.run("dump", "--file", file.toString(), "--json", "--identifier", lone);
        final JsonNode entries = JSON.readTree(found.out());
        assertEquals(2, entries.size(), "dump --identifier finds its bucket and blocked counter: " + found);
        assertEquals(lone, entries.get(0).get("identifier").asText(), "--json carries the identifier as it is");
    }

    /** The ACTION column, after the identifiers, starts at its header's offset on every row. */
    private static void assertActionColumnAligned(final String out)
    {
        final String[] lines = out.split("\n");
        final int at = lines[0].indexOf("ACTION");
        for (int i = 1; i < lines.length - 1; i++) // the last line counts the entries
        {
            assertEquals(at, lines[i].indexOf(" auth ") + 1, "row " + i + " of\n" + out);
        }
    }

    /**
     * The JSON was written in the platform's stdout charset: under the POSIX locale (a container without LANG), a
     * non-ASCII identifier came out as '?', so the raw identifier did not round-trip.
     */
    @Test
    void jsonRoundTripsANonAsciiIdentifierUnderThePosixLocale() throws Exception
    {
        final Path file = table("bjørn-北京");
        final Cli.Result result = CliProcess.run(dir, Map.of("LC_ALL", "C", "LANG", "C"), "dump", "--json",
            "--file", file.toString());
        assertEquals(0, result.code(), result::toString);
        final JsonNode entries = JSON.readTree(result.out());
        assertEquals("bjørn-北京", entries.get(0).get("identifier").asText(), result::toString);
    }
}
