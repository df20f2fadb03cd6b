package dev.floodgate.tools;

import dev.floodgate.testkit.ChildJvm;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** dump, stats, top and watch against a table written by a separate JVM, and the exit codes of file problems. */
class ReadCommandsTest
{
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    private static String table;

    @BeforeAll
    static void writeTable() throws Exception
    {
        table = dir.resolve("t.map").toString();
        final String admitted = ChildJvm.run(dir, TestWriter.class, table);
        assertEquals("ADMITTED 10 10 100 1", admitted.trim());
    }

    @Test
    void dumpShowsEveryEntryWithItsStateAndEscapesIdentifiers()
    {
        final Cli.Result result = Cli.run("dump", "--file", table);
        assertEquals(0, result.code(), result::toString);
        final String out = result.out();
        assertTrue(out.contains("bucket   10.0.0.1"), out);
        assertTrue(out.contains("0/10 tokens, next in"), out);
        assertTrue(out.contains("100/100 used, shards ["), out);
        assertTrue(out.contains("50 refused"), out);
        assertTrue(out.contains("5 refused"), out);
        assertTrue(out.contains("\\x1b[2Jevil\\x07"), out);
        assertFalse(out.contains("\u001b") || out.contains("\u0007"), "raw control characters reached the output");
        assertTrue(out.contains("x".repeat(48) + "..."), "a cut label is marked: " + out);
        assertTrue(out.contains("7 entries"), out);
        assertTrue(out.startsWith("KIND "), out);
        assertEquals("", result.err());
    }

    @Test
    void dumpJsonIsOneParseableArrayWithStableFields() throws Exception
    {
        final Cli.Result result = Cli.run("dump", "--file", table, "--json");
        assertEquals(0, result.code(), result::toString);
        final JsonNode entries = JSON.readTree(result.out());
        assertTrue(entries.isArray());
        assertEquals(7, entries.size());
        final List<String> evil = new ArrayList<>();
        for (final JsonNode entry : entries)
        {
            for (final String field : new String[] {"kind", "identifier", "identifierCut", "action", "limit",
                "windowMs", "ageMs", "tombstoned"})
            {
                assertTrue(entry.has(field), "missing " + field + " in " + entry);
            }
            if (entry.get("identifier").asText().equals(TestWriter.EVIL))
            {
                evil.add(entry.get("kind").asText());
            }
            switch (entry.get("kind").asText())
            {
                case "bucket" -> assertTrue(entry.has("tokens") && entry.has("nextTokenMs"), entry::toString);
                case "window" ->
                {
                    assertEquals(100, entry.get("used").asLong());
                    long sum = 0;
                    for (final JsonNode used : entry.get("shardUsed"))
                    {
                        sum += used.asLong();
                    }
                    assertEquals(100, sum, "shards add up to the window's use");
                    assertTrue(entry.get("windowLeftMs").asLong() > 0);
                }
                case "blocked" -> assertTrue(entry.get("blocked").asLong() > 0, entry::toString);
                default -> throw new AssertionError(entry.toString());
            }
        }
        assertEquals(List.of("blocked", "bucket"), evil.stream().sorted().toList(),
            "the raw identifier round-trips through JSON");
    }

    @Test
    void dumpFilters() throws Exception
    {
        final JsonNode publish = JSON.readTree(Cli.run("dump", "--file", table, "--json", "--action", "publish").out());
        assertEquals(2, publish.size());
        final JsonNode blocked = JSON.readTree(Cli.run("dump", "--file", table, "--json", "--kind", "blocked").out());
        assertEquals(3, blocked.size());
        final JsonNode ip = JSON.readTree(Cli.run("dump", "--file", table, "--json", "--identifier", "10.0.0.1").out());
        assertEquals(2, ip.size());
        final JsonNode longId = JSON.readTree(Cli.run("dump", "--file", table, "--json", "--identifier",
            TestWriter.LONG).out());
        assertEquals(1, longId.size());
        assertTrue(longId.get(0).get("identifierCut").asBoolean());
        assertEquals(2, Cli.run("dump", "--file", table, "--kind", "nope").code());
    }

    @Test
    void statsWritesThePrometheusTextFormat() throws Exception
    {
        final Cli.Result result = Cli.run("stats", "--file", table, "--prometheus");
        assertEquals(0, result.code(), result::toString);
        final String text = result.out();
        assertTrue(text.contains("# TYPE floodgate_checks_total counter"), text);
        assertTrue(text.contains("floodgate_checks_total{action=\"auth\",outcome=\"admitted\"} 21"), text);
        assertTrue(text.contains("floodgate_checks_total{action=\"publish\",outcome=\"refused\"} 50"), text);
        assertTrue(text.contains("floodgate_table_entries{action=\"auth\",kind=\"bucket\"} 3"), text);
        assertTrue(text.contains("floodgate_table_capacity 1000"), text);
        assertTrue(text.contains("floodgate_table_full_total{action=\"publish\"} 0"), text);
        assertTrue(text.contains("floodgate_checks_unreachable_total{action=\"auth\"} 0"), text);
        assertTrue(text.contains("# TYPE floodgate_tier_repairs_total counter\nfloodgate_tier_repairs_total 0"), text);
        assertTrue(text.contains("# TYPE floodgate_tier_divergences_total counter\nfloodgate_tier_divergences_total 0"),
            text);
        assertTrue(!text.contains("10.0.0.1") && !text.contains(TestWriter.LONG), "no identifier in the labels");
        assertEquals(2, Cli.run("stats", "--file", table, "--prometheus", "--json").code(), "one format at a time");
    }

    /**
     * Two tables on one host written as two textfile-collector files gave the same series twice, which node_exporter
     * cannot tell apart; nothing in the text said which table a sample came from. {@code --label} adds one to every
     * sample (the monitoring trial).
     */
    @Test
    void statsLabelsEveryPrometheusSampleWithTheOperatorsLabels() throws Exception
    {
        final Cli.Result result = Cli.run("stats", "--file", table, "--prometheus", "--label", "table=orders",
            "--label", "site=b");
        assertEquals(0, result.code(), result::toString);
        final String text = result.out();
        assertTrue(text.contains("floodgate_checks_total{action=\"auth\",outcome=\"admitted\",site=\"b\"," +
            "table=\"orders\"} 21"), text);
        assertTrue(text.contains("floodgate_table_entries{action=\"auth\",kind=\"bucket\",site=\"b\"," +
            "table=\"orders\"} 3"), text);
        assertTrue(text.contains("floodgate_table_capacity{site=\"b\",table=\"orders\"} 1000"), text);
        assertTrue(text.contains("floodgate_cluster_fallbacks_total{fallback=\"local\",site=\"b\"," +
            "table=\"orders\"} 0"), text);
        for (final String line : text.split("\n"))
        {
            assertTrue(line.startsWith("#") || line.contains("table=\"orders\""), "every sample labelled: " + line);
        }
        final Cli.Result own = Cli.run("stats", "--file", table, "--prometheus", "--label", "action=orders");
        assertEquals(2, own.code(), own::toString);
        assertEquals("floodgate stats: --label action=orders: action is one of the figures' own labels (action, " +
            "outcome, kind, fallback): expected another (see floodgate stats --help)", own.err().strip());
        assertEquals(2, Cli.run("stats", "--file", table, "--prometheus", "--label", "table").code(), "no value");
        assertEquals(2, Cli.run("stats", "--file", table, "--prometheus", "--label", "9table=x").code(), "a name");
        assertEquals(2, Cli.run("stats", "--file", table, "--label", "table=orders").code(), "only with --prometheus");
    }

    @Test
    void statsShowsHeaderCountsAndJson() throws Exception
    {
        final Cli.Result text = Cli.run("stats", "--file", table);
        assertEquals(0, text.code(), text::toString);
        assertTrue(text.out().contains("format       version " + dev.floodgate.store.FileHeader.FORMAT_VERSION), text.out());
        assertTrue(text.out().contains("occupancy    0.70% (7 of 1,000 entries"), text.out());
        assertTrue(text.out().contains("processes    0 attached"), text.out());
        assertTrue(text.out().contains("guards       0 segment guards held now, 0 dead holders taken over"),
            text.out());
        assertTrue(text.out().contains("entry counts 0 repaired, diverged in a chained tier seen by 0 scan(s)\n"),
            text.out());
        final JsonNode stats = JSON.readTree(Cli.run("stats", "--file", table, "--json").out());
        assertEquals(dev.floodgate.store.FileHeader.FORMAT_VERSION, stats.get("formatVersion").asInt());
        assertEquals(21, stats.get("actions").get("auth").get("admitted").asLong(), "the writer's checks, counted");
        assertEquals(7, stats.get("actions").get("auth").get("refused").asLong());
        assertEquals(100, stats.get("actions").get("publish").get("admitted").asLong());
        assertEquals(50, stats.get("actions").get("publish").get("refused").asLong());
        assertEquals(1000, stats.get("capacity").asLong());
        assertEquals(7, stats.get("liveEntries").asLong());
        assertEquals(0.7, stats.get("occupancyPercent").asDouble(), 1e-9);
        assertEquals(3, stats.get("actions").get("auth").get("buckets").asLong());
        assertEquals(2, stats.get("actions").get("auth").get("blocked").asLong());
        assertEquals(1, stats.get("actions").get("publish").get("windows").asLong());
        assertEquals(0, stats.get("tableFullEvents").asLong());
        assertEquals(0, stats.get("degradedChecks").asLong());
        assertEquals(0, stats.get("actions").get("auth").get("degraded").asLong());
        assertEquals(0, stats.get("guard").get("segmentsHeld").asLong(), "nobody holds a guard at rest");
        assertTrue(stats.get("guard").has("repairs") && stats.get("guard").has("timeouts"));
        assertEquals(0, stats.get("tierRepairs").asLong(), "no process died inside an insert");
        assertEquals(0, stats.get("tierDivergences").asLong());
        assertTrue(stats.get("shards").asInt() >= 1);
        assertTrue(stats.get("bootId").asText().matches("[0-9a-f-]{36}"));
        assertEquals(0, stats.get("attachedProcesses").asInt(), "the writer has closed; a reader never attaches");
    }

    @Test
    void topListsMostRefusedFirst() throws Exception
    {
        final Cli.Result text = Cli.run("top", "--file", table, "--action", "auth");
        assertEquals(0, text.code(), text::toString);
        final String[] lines = text.out().split("\n");
        assertTrue(lines[1].contains("10.0.0.1") && lines[1].contains("5"), text.out());
        assertTrue(lines[2].contains("\\x1b[2Jevil\\x07") && lines[2].contains("2"), text.out());
        final JsonNode top = JSON.readTree(Cli.run("top", "--file", table, "--action", "publish", "-n", "1",
            "--json").out());
        assertEquals(1, top.size());
        assertEquals("alice", top.get(0).get("identifier").asText());
        assertEquals(50, top.get(0).get("blocked").asLong());
        final String help = Cli.run("top", "--help").out();
        top.get(0).fieldNames().forEachRemaining(field -> assertTrue(help.contains(field),
            "top --help does not name the --json field " + field + ": " + help));
        assertEquals("no refusals recorded\n", Cli.run("top", "--file", table, "--action", "subscribe").out());
    }

    @Test
    void watchRefreshesTheGivenNumberOfTimes()
    {
        final Cli.Result result = Cli.run("watch", "--file", table, "--iterations", "2", "--interval", "10ms");
        assertEquals(0, result.code(), result::toString);
        assertEquals(2, result.out().split("floodgate watch - ", -1).length - 1, result.out());
        assertFalse(result.out().contains("\033"), "stdout is not a terminal: no clear-screen codes");
        assertTrue(result.out().contains("top refused"));
        assertFalse(Cli.run("watch", "--file", table, "--iterations", "1", "--no-clear").out().contains("\033"));
    }

    @Test
    void unknownActionIsAUsageError()
    {
        final Cli.Result result = Cli.run("top", "--file", table, "--action", "nope");
        assertEquals(2, result.code(), result::toString);
        assertTrue(result.err().contains("unknown action 'nope'"), result.err());
        assertEquals(1, result.err().strip().lines().count(), "one line: " + result.err());
        assertEquals(2, Cli.run("dump", "--no-such-option").code());
        assertEquals(2, Cli.run("reset", "someone", "nope", "--file", table).code());
        assertEquals(2, Cli.run().code());
    }

    /** Config keys said "did you mean X?" (KeySpelling) while a misspelt action suggested nothing. */
    @Test
    void misspeltActionSuggestsTheNearestOne()
    {
        final Cli.Result result = Cli.run("top", "--file", table, "--action", "publsh");
        assertEquals(2, result.code(), result::toString);
        assertTrue(result.err().contains("unknown action 'publsh' (did you mean publish?): expected one of auth, " +
            "dashboard_auth, dashboard_api, publish, subscribe"), result.err());
        assertTrue(Cli.run("top", "--file", table, "--action", "Dashboard-Apy").err()
            .contains("unknown action 'Dashboard-Apy' (did you mean dashboard_api?)"));
        assertTrue(Cli.run("top", "--file", table, "--action", "nope").err()
            .contains("unknown action 'nope': expected one of "), "nothing near: no suggestion");
    }

    @Test
    void missingFileIsExitThreeAndIsNotCreated()
    {
        final Path missing = dir.resolve("missing.map");
        assertEquals(3, Cli.run("stats", "--file", missing.toString()).code());
        assertEquals(3, Cli.run("watch", "--file", missing.toString(), "--iterations", "1").code());
        final Cli.Result dump = Cli.run("dump", "--file", missing.toString());
        assertEquals(3, dump.code(), dump::toString);
        assertTrue(dump.err().contains("no such file"), dump.err());
        assertEquals(3, Cli.run("top", "--action", "auth", "--file", missing.toString()).code());
        assertEquals(3, Cli.run("reset", "someone", "auth", "--file", missing.toString()).code());
        assertFalse(Files.exists(missing), "a reader must never create the table");
        assertEquals(3, Cli.run("stats", "--file", dir.toString()).code(), "a directory is not a table");
    }

    @Test
    void foreignFileIsExitThreeWithoutAStackTrace() throws Exception
    {
        final Path garbage = dir.resolve("garbage.map");
        final byte[] bytes = new byte[64 * 1024];
        new Random(42).nextBytes(bytes);
        Files.write(garbage, bytes);
        final Path empty = Files.createFile(dir.resolve("empty.map"));
        for (final Path file : new Path[] {garbage, empty})
        {
            for (final String[] args : new String[][] {{"dump"}, {"stats"}, {"top", "--action", "auth"},
                {"reset", "someone", "auth"}})
            {
                final List<String> line = new ArrayList<>(List.of(args));
                line.add("--file");
                line.add(file.toString());
                final Cli.Result result = Cli.run(line.toArray(String[]::new));
                assertEquals(3, result.code(), result::toString);
                assertTrue(result.err().contains("not a Floodgate table"), result::toString);
                assertFalse(result.err().contains("\tat "), "no stack trace: " + result.err());
            }
        }
    }

    @Test
    void everyCommandHasHelp()
    {
        for (final String command : new String[] {"dump", "stats", "top", "reset", "watch", "demo", "bench"})
        {
            final Cli.Result result = Cli.run(command, "--help");
            assertEquals(0, result.code(), result::toString);
            assertTrue(result.out().startsWith("Usage: floodgate " + command), result.out());
            assertTrue(result.out().contains("--file"), command + " takes --file");
        }
        assertFalse(Cli.run("--help").out().contains("worker"), "the worker command is hidden");
    }
}
