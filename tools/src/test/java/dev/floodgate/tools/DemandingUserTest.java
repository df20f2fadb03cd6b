package dev.floodgate.tools;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Wrong input as a new operator types it (found by a review of every command's input; each failed before): each
 * test states what the operator met.
 */
@Timeout(120)
class DemandingUserTest
{
    @TempDir
    Path dir;

    /**
     * {@code watch --iterations 0} (a script's {@code --iterations "$N"} with N=0) refreshed forever: 0 was the
     * "never stop" default, so the value typed was silently read as "no limit"; and {@code --iterations -1} was
     * refused as "-n and --iterations: expected 0 or more", naming neither the value nor the option alone.
     */
    @Test
    void watchRefusesAnIterationCountBelowOneNamingIt()
    {
        final String table = dir.resolve("absent.map").toString();
        for (final String count : new String[] {"0", "-1"})
        {
            final Cli.Result watch = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> Cli.run("watch", "--iterations", count, "--interval", "100ms", "--file", table));
            assertEquals(2, watch.code(), watch::toString);
            assertTrue(watch.err().startsWith("floodgate watch: --iterations " + count + ": expected 1 or more"),
                watch::toString);
            assertEquals("", watch.out(), watch::toString);
        }
    }

    /**
     * {@code policy} on a table no JVM has opened yet (made by {@code Floodgate.createFile}, as a provisioning
     * step does) printed {@code auth limit=0 window_ms=0} for every action: every quota read as switched off (and
     * a login control cannot be), while {@code reset} and {@code policy set} on the same file say it has no policy
     * yet.
     */
    @Test
    void policySaysATableHasNoPolicyYetRatherThanShowingEveryLimitOff()
    {
        final Path table = dir.resolve("new.map");
        Floodgate.createFile(FloodgateConfig.builder().file(table).capacity(1000).build());
        final Cli.Result policy = Cli.run("policy", "--file", table.toString());
        assertEquals(0, policy.code(), policy::toString);
        assertTrue(policy.out().contains("no policy yet"), policy::toString);
        assertFalse(policy.out().contains("limit=0"), policy::toString);
    }

    /**
     * {@code bench --door bucket --limit 1000003} was refused as "--limit 1000003: expected 1 to 4398046511103
     * that the token bucket can represent per 604800000 ms": the value is inside the range it names, so the
     * message did not say what the bucket needs (at most 2^34 - 1, and limit / gcd(limit, window in ns) at most
     * 1024).
     */
    @Test
    void benchSaysWhatTheBucketNeedsOfALimitItCannotRepresent()
    {
        for (final String limit : new String[] {"1000003", "4398046511103"})
        {
            final Cli.Result bench = Cli.run("bench", "--door", "bucket", "--limit", limit, "--processes", "1",
                "--threads", "1", "--keys", "1", "--duration", "1s", "--file", dir.resolve("b.map").toString());
            assertEquals(2, bench.code(), bench::toString);
            assertTrue(bench.err().startsWith("floodgate bench: --limit " + limit + ": "), bench::toString);
            assertFalse(bench.err().contains("expected 1 to 4398046511103"), bench::toString);
            assertTrue(bench.err().contains("17179869183") && bench.err().contains("1024"), bench::toString);
        }
    }

    /**
     * {@code dump --identifier ''} (a script's {@code --identifier "$ID"} with ID unset) printed "0 entries", exit
     * 0, as if the identifier had no state: no identifier is empty (the engine refuses one, and so does
     * {@code reset}), so it is a usage error.
     */
    @Test
    void dumpRefusesAnEmptyIdentifier()
    {
        final Cli.Result dump = Cli.run("dump", "--identifier", "", "--file", dir.resolve("absent.map").toString());
        assertEquals(2, dump.code(), dump::toString);
        assertTrue(dump.err().contains("'--identifier'") && dump.err().contains("''"), dump::toString);
        assertEquals("", dump.out(), dump::toString);
    }

    /**
     * {@code bench --cluster-redis URI --cluster-window 100000m} was refused in the engine's words, "--cluster-redis
     * URI --cluster-limit 1000 per 6000000000 ms: publish_cluster_rate_window_ms=6000000000: expected ... from 0 to
     * 604800000 (0: no cluster quota)": neither the option typed nor its value, and a 0 the option refuses.
     */
    @Test
    void benchNamesAClusterWindowAboveSevenDaysAsTyped()
    {
        final Cli.Result bench = Cli.run("bench", "--cluster-redis", "redis://127.0.0.1:1", "--cluster-window",
            "100000m", "--processes", "1", "--threads", "1", "--keys", "1", "--duration", "1s", "--file",
            dir.resolve("b.map").toString());
        assertEquals(2, bench.code(), bench::toString);
        assertTrue(bench.err().startsWith("floodgate bench: --cluster-window '100000m': "), bench::toString);
        assertTrue(bench.err().contains("10080m"), bench::toString);
        assertFalse(bench.err().contains("cluster_rate_window_ms"), bench::toString);
    }

    /**
     * Every command's help offers "-V, --version  Print version information and exit.", but {@code floodgate dump
     * -V} (or {@code policy set --version}) printed an empty line, exit 0: only the top command had a version.
     */
    @Test
    void everyCommandThatOffersVersionPrintsIt()
    {
        final String version = Cli.run("--version").out().strip();
        assertTrue(version.startsWith("floodgate "), version);
        for (final String[] command : new String[][] {{"dump"}, {"stats"}, {"top"}, {"reset"}, {"watch"},
            {"policy"}, {"policy", "set"}, {"demo"}, {"bench"}})
        {
            final String[] args = java.util.Arrays.copyOf(command, command.length + 1);
            args[command.length] = "-V";
            final Cli.Result run = Cli.run(args);
            assertEquals(0, run.code(), run::toString);
            assertEquals(version, run.out().strip(), String.join(" ", args));
        }
    }

    /**
     * {@code demo} (and {@code bench}) run from a broker's shell with a mistyped {@code FLOODGATE_POLICY} failed
     * with "cannot release worker: worker 1 still running, last error line: at
     * dev.floodgate.tools.FloodgateCli.main(...)": the workers opened their scratch table under the broker's
     * variable, died of it, and the operator was shown a stack trace's last line. The scratch table is the
     * command's own, like the policy its workers publish, so the variable is not theirs to read.
     */
    @Test
    void demoIsNotBrokenByABrokersPolicyVariable() throws Exception
    {
        final Cli.Result demo = CliProcess.run(dir, java.util.Map.of("FLOODGATE_POLICY", "pubish"), "demo",
            "--seconds", "1", "--processes", "1", "--threads", "1");
        assertEquals(0, demo.code(), demo::toString);
        assertTrue(demo.out().contains("exact"), demo::toString);
    }

    /**
     * {@code bench --threads 3000000000} was refused as "Invalid value for option '--threads': '3000000000': expected
     * a whole number in ASCII digits from -2147483648 to 2147483647": the range of Java's {@code int}, not the
     * option's 1 to 256, which {@code --threads 300} is told. Every whole-number option of a command names its
     * own bounds, whatever the value typed.
     */
    @Test
    void anOptionOutOfRangeNamesItsOwnBoundsNotTheIntRange()
    {
        final String table = dir.resolve("b.map").toString();
        final String[][] runs = {
            {"bench", "--threads", "3000000000", "--processes", "1", "--duration", "1s", "--file", table},
            {"bench", "--processes", "3000000000", "--threads", "1", "--duration", "1s", "--file", table},
            {"bench", "--keys", "3000000000", "--processes", "1", "--threads", "1", "--duration", "1s", "--file",
                table},
            {"demo", "--seconds", "3000000000", "--processes", "1", "--threads", "1"},
            {"demo", "--ips", "-3000000000", "--processes", "1", "--threads", "1", "--seconds", "1"}};
        final String[] expected = {"--threads 3000000000: expected 1 to 256",
            "--processes 3000000000: expected 1 to 32", "--keys 3000000000: expected 1 to 1000000",
            "--seconds 3000000000: expected 1 to 600", "--ips -3000000000: expected 1 to 1000"};
        for (int i = 0; i < runs.length; i++)
        {
            final Cli.Result run = Cli.run(runs[i]);
            assertEquals(2, run.code(), run::toString);
            assertTrue(run.err().startsWith("floodgate " + runs[i][0] + ": " + expected[i]), run::toString);
            assertFalse(run.err().contains("2147483647"), run::toString);
        }
    }

    /** {@code top -n 3000000000} was refused naming the {@code int} range: -n has no upper bound, it shows them all. */
    @Test
    void topShowsEveryRefusedIdentifierForACountAboveTheIntRange()
    {
        final Path table = dir.resolve("t.map");
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(table).capacity(1000).build()))
        {
            for (int i = 0; i < 11; i++)
            {
                gate.checkLimit("10.0.0.1", dev.floodgate.Action.AUTH);
            }
        }
        final Cli.Result top = Cli.run("top", "--action", "auth", "-n", "3000000000", "--file", table.toString());
        assertEquals(0, top.code(), top::toString);
        assertTrue(top.out().contains("10.0.0.1"), top::toString);
        final Cli.Result below = Cli.run("top", "--action", "auth", "-n", "-3000000000", "--file", table.toString());
        assertEquals(2, below.code(), below::toString);
        assertTrue(below.err().startsWith("floodgate top: -n -3000000000: expected 1 or more"), below::toString);
    }

    /**
     * {@code reset} and {@code policy set} on a table of another format version (left by an older Floodgate)
     * were refused, exit 3, but left {@code t.map.lock} beside it: the engine makes its lock file before it can
     * read the table's header. A refused command leaves the directory as it found it.
     */
    @Test
    void writingCommandsLeaveNothingBesideATableOfAnotherFormatVersion() throws Exception
    {
        final Path table = dir.resolve("t.map");
        Floodgate.open(FloodgateConfig.builder().file(table).capacity(1000).build()).close();
        try (dev.floodgate.store.QuotaTable open = dev.floodgate.store.QuotaTable.open(table, 1000, 2, false, 0))
        {
            open.header().buffer().putInt(dev.floodgate.store.FileHeader.VERSION_OFFSET,
                dev.floodgate.store.FileHeader.FORMAT_VERSION - 1);
        }
        java.nio.file.Files.delete(dir.resolve("t.map.lock")); // as found: the other version's brokers are gone
        final java.util.List<Path> before = listing();
        for (final String[] command : new String[][] {{"reset", "alice", "publish"},
            {"policy", "set", "publish.limit=5"}})
        {
            final String[] args = java.util.Arrays.copyOf(command, command.length + 2);
            args[command.length] = "--file";
            args[command.length + 1] = table.toString();
            final Cli.Result run = Cli.run(args);
            assertEquals(3, run.code(), run::toString);
            assertTrue(run.err().contains("format version " + (dev.floodgate.store.FileHeader.FORMAT_VERSION - 1)),
                run::toString);
            assertEquals(before, listing(), String.join(" ", command) + " left the directory as it found it");
        }
    }

    private java.util.List<Path> listing() throws java.io.IOException
    {
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(dir))
        {
            return files.sorted().toList();
        }
    }
}
