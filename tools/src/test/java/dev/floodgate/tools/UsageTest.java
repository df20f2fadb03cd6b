package dev.floodgate.tools;

import dev.floodgate.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a user meets first: help, usage errors and the alignment of what the commands print. */
class UsageTest
{
    @TempDir
    Path dir;

    @Test
    void helpIsACommandAndTheInternalWorkerIsNotOffered()
    {
        final Cli.Result help = Cli.run("help");
        assertEquals(0, help.code(), help::toString);
        assertTrue(help.out().startsWith("Usage: floodgate "), help::toString);
        assertTrue(help.out().contains("  reset ") && help.out().contains("  bench "), help::toString);
        assertFalse(help.out().contains("worker"), help::toString);
        final Cli.Result reset = Cli.run("help", "reset");
        assertEquals(0, reset.code(), reset::toString);
        assertTrue(reset.out().startsWith("Usage: floodgate reset "), reset::toString);
        final Cli.Result none = Cli.run();
        assertEquals(2, none.code(), none::toString);
        assertTrue(none.err().contains("expected one of dump, stats"), none::toString);
        assertFalse(none.err().contains("worker"), none::toString);
    }

    /**
     * {@code floodgate help --bogus} printed the top command's help, exit 0, and {@code help dump --json} dump's: a
     * help request won over the stray argument, as it did with {@code --help} ({@code dump --help --bogus}), where
     * {@code dump --bogus} is a usage error naming it (found by review). Now each is that usage error: exit 2, one
     * line naming the argument, nothing on standard output.
     */
    @Test
    void aStrayArgumentBesideAHelpRequestIsAUsageErrorNamingIt()
    {
        for (final String[] asked : new String[][] {{"help", "--bogus"}, {"help", "dump", "--json"},
            {"dump", "--help", "--bogus"}, {"policy", "set", "--bogus", "--help"}, {"--help", "--bogus"},
            {"dump", "--bogus"}})
        {
            final String stray = asked[asked.length - 1].equals("--help") ? asked[asked.length - 2] :
                asked[asked.length - 1];
            final Cli.Result run = Cli.run(asked);
            assertEquals(2, run.code(), String.join(" ", asked) + ": " + run);
            assertEquals("", run.out(), String.join(" ", asked) + ": " + run);
            assertTrue(run.err().contains("Unknown option: '" + stray + "'"), String.join(" ", asked) + ": " + run);
            assertEquals(1, run.err().strip().lines().count(), "one line: " + run);
        }
    }

    @Test
    void helpTextWrapsAtSpacesOnlyAndFitsEightyColumns()
    {
        final List<String> helps = new ArrayList<>();
        collect(FloodgateCli.newCommandLine(), helps);
        final String all = String.join("\n", helps);
        for (final String token : new String[] {"publish.limit=1000", "auth.window_ms=60000", "java.io.tmpdir",
            "/dev/shm/floodgate/floodgate.map", "table-full", "[--processes=P]"})
        {
            assertTrue(all.contains(token), "'" + token + "' is cut by a line break:\n" + all);
        }
        for (final String line : all.split("\n"))
        {
            assertTrue(line.length() <= 80 || line.strip().indexOf(' ') < 0, "too wide: " + line);
        }
    }

    private static void collect(final CommandLine commandLine, final List<String> helps)
    {
        helps.add(commandLine.getUsageMessage());
        commandLine.getSubcommands().values().forEach(sub -> collect(sub, helps));
    }

    @Test
    void aCountOfZeroIsAUsageError() throws Exception
    {
        final Path table = dir.resolve("t.map");
        ChildJvm.run(dir, TestWriter.class, table.toString());
        final Cli.Result top = Cli.run("top", "--action", "auth", "-n", "0", "--file", table.toString());
        assertEquals(2, top.code(), top::toString);
        assertTrue(top.err().startsWith("floodgate top: -n 0: expected 1 or more"), top::toString);
        assertEquals("", top.out(), "no claim that there are no refusals");
        final Cli.Result watch = Cli.run("watch", "-n", "0", "--iterations", "1", "--file", table.toString());
        assertEquals(2, watch.code(), watch::toString);
    }

    @Test
    void wideCharactersKeepDumpsColumnsAligned() throws Exception
    {
        final Path table = dir.resolve("wide.map");
        ChildJvm.run(dir, WideWriter.class, table.toString());
        final Cli.Result dump = Cli.run("dump", "--kind", "blocked", "--file", table.toString());
        assertEquals(0, dump.code(), dump::toString);
        final List<Integer> actionColumns = new ArrayList<>();
        for (final String line : dump.out().split("\n"))
        {
            final int at = line.indexOf(" auth ");
            if (at >= 0)
            {
                // every non-ASCII character of these identifiers takes two columns on a terminal
                final String before = line.substring(0, at);
                actionColumns.add((int)before.codePoints().map(cp -> cp > 0x7f ? 2 : 1).sum());
            }
        }
        assertEquals(WideWriter.IDS.length, actionColumns.size(), dump::toString);
        assertEquals(1, actionColumns.stream().distinct().count(), "the ACTION column moves:\n" + dump.out());
    }

    @Test
    void loadCommandsNameTheOptionThatIsOutOfRange()
    {
        final Cli.Result processes = Cli.run("demo", "--processes", "0");
        assertEquals(2, processes.code(), processes::toString);
        assertTrue(processes.err().startsWith("floodgate demo: --processes 0: expected 1 to "), processes::toString);
        final Cli.Result threads = Cli.run("bench", "--threads", "1000");
        assertEquals(2, threads.code(), threads::toString);
        assertTrue(threads.err().startsWith("floodgate bench: --threads 1000: expected 1 to "), threads::toString);
        final Cli.Result keys = Cli.run("bench", "--keys", "0");
        assertTrue(keys.err().startsWith("floodgate bench: --keys 0: expected 1 to "), keys::toString);
        final Cli.Result seconds = Cli.run("demo", "--seconds", "9999");
        assertTrue(seconds.err().startsWith("floodgate demo: --seconds 9999: expected 1 to "), seconds::toString);
    }
}
