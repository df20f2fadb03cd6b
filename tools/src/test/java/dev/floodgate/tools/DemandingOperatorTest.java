package dev.floodgate.tools;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every command with bad input, as a demanding operator types it on a fresh clone (each failed before its fix):
 * each test states what they saw. The contract: the error names the value and what was expected, exits with the
 * documented code (1 refused, among them not writable; 2 usage; 3 a missing, unreadable or foreign file), prints
 * no stack trace and changes nothing.
 */
@Timeout(120)
class DemandingOperatorTest
{
    @TempDir
    Path dir;

    /**
     * {@code reset} and {@code policy set} on a table they may write, in a directory they may not (so its lock file,
     * absent, cannot be made there), named the directory, with exit code 3: "a missing, unreadable or foreign file",
     * where the help and README give "not writable" as exit code 1, and a table the user cannot write is refused so.
     * The message also said "the table and its lock file are made there" of a table that exists. Now exit 1, the
     * lock file alone named as made there, and what was not done; the table's bytes are as they were.
     */
    @Test
    void aWritableTableInADirectoryTheUserCannotWriteIsRefusedAsNotWritable() throws Exception
    {
        final Path readOnly = Files.createDirectory(dir.resolve("ro"));
        final Path table = readOnly.resolve("t.map");
        Floodgate.open(FloodgateConfig.builder().file(table).capacity(1_000).build()).close(); // with a policy
        Files.delete(readOnly.resolve("t.map.lock"));
        final byte[] before = Files.readAllBytes(table);
        final boolean immutable = ResetCommandTest.makeUnwritable(readOnly);
        try
        {
            Assumptions.assumeFalse(Files.isWritable(readOnly), "cannot make a directory unwritable for this user");
            Assumptions.assumeTrue(Files.isWritable(table), "the table in it must stay writable");
            final Cli.Result reset = Cli.run("reset", "alice", "publish", "--file", table.toString());
            assertEquals(1, reset.code(), reset::toString);
            assertEquals("floodgate reset: " + readOnly + ": not writable by this user (the table's lock file, " +
                "t.map.lock, is made there), so nothing was reset (run as the brokers' user)\n", reset.err());
            final Cli.Result policy = Cli.run("policy", "set", "publish.limit=5", "--file", table.toString());
            assertEquals(1, policy.code(), policy::toString);
            assertEquals("floodgate policy set: " + readOnly + ": not writable by this user (the table's lock " +
                "file, t.map.lock, is made there), so the policy was not changed (run as the brokers' user)\n",
                policy.err());
            assertEquals("", reset.out() + policy.out());
        }
        finally
        {
            ResetCommandTest.makeWritable(readOnly, immutable);
        }
        assertArrayEquals(before, Files.readAllBytes(table), "the table changed");
        assertEquals(List.of(table), list(readOnly), "nothing made beside it");
    }

    /**
     * {@code demo --file DIR/a/b/new.map}, DIR a directory the user cannot write, said "DIR/a/b/new.map: cannot be
     * created: permission denied (DIR/a)", exit 3: neither the directory to fix nor "not writable", as the same path
     * one level up says. Now it names DIR, the directories that were to be made there, and exits 1 (bench the
     * same, and a broker's open: the engine's message).
     */
    @Test
    void aMissingDirectoryUnderOneTheUserCannotWriteNamesThatOne() throws Exception
    {
        final Path readOnly = Files.createDirectory(dir.resolve("ro"));
        final boolean immutable = ResetCommandTest.makeUnwritable(readOnly);
        try
        {
            Assumptions.assumeFalse(Files.isWritable(readOnly), "cannot make a directory unwritable for this user");
            for (final String command : new String[] {"demo", "bench"})
            {
                final Cli.Result run = Cli.run(command, "--file", readOnly.resolve("a/b/new.map").toString());
                assertEquals(1, run.code(), run::toString);
                assertEquals("floodgate " + command + ": " + readOnly + ": not writable by this user (the table's " +
                    "directory, a/b, is made there)\n", run.err());
                assertEquals("", run.out(), run::toString);
            }
        }
        finally
        {
            ResetCommandTest.makeWritable(readOnly, immutable);
        }
        assertEquals(List.of(), list(readOnly), "nothing made there");
    }

    /**
     * {@code help worker} printed the usage of the hidden {@code worker} command (internal: the JVMs demo and
     * bench start), exit 0, which neither the usage nor a mistyped command lists. It now answers as for a command
     * that does not exist; {@code worker} itself still runs (demo and bench start it), and its errors no longer
     * point at a {@code --help} it does not have.
     */
    @Test
    void theHiddenWorkerCommandHasNoHelp()
    {
        final Cli.Result help = Cli.run("help", "worker");
        assertEquals(2, help.code(), help::toString);
        assertEquals("", help.out(), help::toString);
        assertEquals("floodgate: no help for 'worker': not a command; expected one of dump, stats, top, reset, " +
            "watch, policy, demo, bench, help (see floodgate --help)\n", help.err());
        final Cli.Result worker = Cli.run("worker");
        assertEquals(2, worker.code(), worker::toString);
        assertTrue(worker.err().startsWith("floodgate worker: Missing required options"), worker::toString);
        assertTrue(!worker.err().contains("--help"), "no help to see: " + worker);
    }

    /**
     * {@code reset} on a table it may write whose lock file it may not said "LOCK: cannot be opened for writing: LOCK
     * (every process ...)" (as root, whom only an immutable file stops: "...: LOCK: Operation not permitted"): the
     * path twice and never why. It now says the lock file is not writable by this user; exit 1, nothing changed.
     */
    @Test
    void aLockFileTheUserCannotWriteIsSaidSo() throws Exception
    {
        final Path table = dir.resolve("t.map");
        final Path lock = dir.resolve("t.map.lock");
        Floodgate.open(FloodgateConfig.builder().file(table).capacity(1_000).build()).close(); // with a policy
        final byte[] before = Files.readAllBytes(table);
        final boolean immutable = ResetCommandTest.makeUnwritable(lock);
        try
        {
            Assumptions.assumeFalse(Files.isWritable(lock), "cannot make a file unwritable for this user here");
            final Cli.Result reset = Cli.run("reset", "alice", "publish", "--file", table.toString());
            assertEquals(1, reset.code(), reset::toString);
            assertEquals("floodgate reset: " + lock + ": not writable by this user (every process that checks " +
                "limits needs write access to the table and its lock file), so nothing was reset (run as the " +
                "brokers' user)\n", reset.err());
            assertEquals("", reset.out());
        }
        finally
        {
            ResetCommandTest.makeWritable(lock, immutable);
        }
        assertArrayEquals(before, Files.readAllBytes(table), "the table changed");
    }

    /**
     * {@code demo --seconds 300}, inside the 1 to 600 its help gives, was refused as "--auth-limit 10: a login token
     * would come back during the run; expected at most 9": an option the operator never typed (its default), and
     * not the one they did. Both are named now, with the bound of each.
     */
    @Test
    void aDemoTooLongForItsLoginQuotaNamesBothOptions()
    {
        final Cli.Result demo = Cli.run("demo", "--seconds", "300");
        assertEquals(2, demo.code(), demo::toString);
        assertEquals("floodgate demo: --auth-limit 10 with --seconds 300: a login token would come back during the " +
            "run (one every 360 s, a run may take a minute more than --seconds to start); expected --auth-limit at " +
            "most 9, or --seconds at most 299 (see floodgate demo --help)\n", demo.err());
        assertEquals("", demo.out());
    }

    /**
     * {@code demo --file t.map/x.map}, t.map a table (a path through a regular file), printed two errors: "could not
     * remove /tmp/floodgate-demo-...: ...: Not a directory" and "t.map/x.map: cannot be created: t.map" (why not, unsaid),
     * and left that temporary directory in /tmp: the removal of the table at the path failed first and skipped it.
     * Now one line saying t.map is not a directory, exit 3, and nothing left behind (bench the same).
     */
    @Test
    void aPathThroughAFileIsOneErrorAndLeavesNothingBehind() throws Exception
    {
        final Path table = Files.writeString(dir.resolve("t.map"), "not a directory");
        final Path tmp = Files.createDirectory(dir.resolve("tmp"));
        for (final String command : new String[] {"demo", "bench"})
        {
            // the child's java.io.tmpdir is the test's, so what the command leaves there is seen
            final Cli.Result run = CliProcess.run(dir, java.util.Map.of("JAVA_TOOL_OPTIONS",
                "-Djava.io.tmpdir=" + tmp), command, "--file", table.resolve("x.map").toString());
            assertEquals(3, run.code(), run::toString);
            assertEquals("floodgate " + command + ": " + table.resolve("x.map") + ": cannot be created: " + table +
                " is not a directory\n", run.err().replaceAll("(?m)^Picked up JAVA_TOOL_OPTIONS: .*\n", ""));
            assertEquals(List.of(), list(tmp), command + " left its temporary directory");
        }
        assertEquals("not a directory", Files.readString(table));
    }

    /**
     * {@code policy set publish.limit=5} and {@code reset} on a table no JVM has opened yet ({@code
     * Floodgate.createFile}: no policy to change or adopt) exited 3, "a missing, unreadable or foreign file", for a
     * table that is none of these: it is refused (exit 1) until a broker publishes the first policy, the file
     * unchanged. A malformed change is still named first (exit 2). (A table written under a previous boot, replaced
     * by a fresh one at the open, is refused so too: {@code WritingCommandsTest.verboseShowsTheEngineLogs}.)
     */
    @Test
    void writingToATableWithNoPolicyYetIsRefused() throws Exception
    {
        final Path table = dir.resolve("t.map");
        Floodgate.createFile(FloodgateConfig.builder().file(table).capacity(1_000).build());
        final byte[] before = Files.readAllBytes(table);
        final Cli.Result set = Cli.run("policy", "set", "publish.limit=5", "--file", table.toString());
        assertEquals(1, set.code(), set::toString);
        assertEquals("floodgate policy set: " + table + ": has no policy yet (the first JVM to open it publishes " +
            "one), so the policy was not changed; try again once a broker has opened it\n", set.err());
        final Cli.Result reset = Cli.run("reset", "alice", "publish", "--file", table.toString());
        assertEquals(1, reset.code(), reset::toString);
        assertEquals("floodgate reset: " + table + ": has no policy yet (the first JVM to open it publishes " +
            "one), so nothing was reset; try again once a broker has opened it\n", reset.err());
        final Cli.Result typo = Cli.run("policy", "set", "publish.limt=5", "--file", table.toString());
        assertEquals(2, typo.code(), typo::toString);
        assertTrue(typo.err().contains("'publish.limt=5': unknown key 'limt' (did you mean limit?)"), typo::toString);
        assertEquals("", set.out() + reset.out() + typo.out());
        assertArrayEquals(before, Files.readAllBytes(table), "the table changed");
    }

    /**
     * {@code policy set publish.limit=-1} (or a window of 0, a mode of {@code bogus}, a limit of {@code abc}) on a
     * table with no policy yet checked the change's syntax only and said "has no policy yet ... try again once a
     * broker has opened it", exit 1: the operator who waited for the broker then learnt of the typo. Each value is
     * now checked against its key's bounds as on a table with a policy, in the same words (exit 2), and a login
     * control's limit against its window when both are given; a limit that needs the policy's window to be judged
     * is left to the refusal for want of a policy. The table is unchanged.
     */
    @Test
    void aChangeToATableWithNoPolicyYetHasItsValuesChecked() throws Exception
    {
        final Path fresh = dir.resolve("fresh.map");
        Floodgate.createFile(FloodgateConfig.builder().file(fresh).capacity(1_000).build());
        final Path published = dir.resolve("published.map");
        Floodgate.open(FloodgateConfig.builder().file(published).capacity(1_000).build()).close();
        final byte[] before = Files.readAllBytes(fresh);
        for (final String[] change : new String[][] {{"publish.limit=-1"}, {"publish.window_ms=0"},
            {"auth.limit=0"}, {"publish.mode=bogus"}, {"publish.limit=abc"}, {"publish.limit=5000000000000"},
            {"auth.window_ms=700000000"}, {"auth.limit=5", "dashboard_api.window_ms=-5"},
            {"auth.limit=1031", "auth.window_ms=60000"}})
        {
            final Cli.Result withPolicy = set(published, change);
            assertEquals(2, withPolicy.code(), withPolicy::toString);
            final Cli.Result noPolicy = set(fresh, change);
            assertEquals(withPolicy.err(), noPolicy.err(), "the same check and words: " + noPolicy);
            assertEquals(2, noPolicy.code(), noPolicy::toString);
            assertEquals("", noPolicy.out(), noPolicy::toString);
        }
        // judged against the auth window the first broker will publish: no policy yet to judge it by
        final Cli.Result needsThePolicy = set(fresh, "auth.limit=1031");
        assertEquals(1, needsThePolicy.code(), needsThePolicy::toString);
        assertTrue(needsThePolicy.err().contains("has no policy yet"), needsThePolicy::toString);
        assertArrayEquals(before, Files.readAllBytes(fresh), "the table changed");
    }

    private static Cli.Result set(final Path table, final String... change)
    {
        final String[] args = Stream.concat(Stream.of("policy", "set", "--file", table.toString()),
            Stream.of(change)).toArray(String[]::new);
        return Cli.run(args);
    }

    private static List<Path> list(final Path directory) throws Exception
    {
        try (Stream<Path> paths = Files.list(directory))
        {
            return paths.sorted().toList();
        }
    }
}
