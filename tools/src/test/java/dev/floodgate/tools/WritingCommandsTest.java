package dev.floodgate.tools;

import dev.floodgate.testkit.ChildJvm;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * reset and policy set run as a user runs them, in their own JVM, against a table a broker JVM wrote with
 * limits other than the CLI's defaults (publish 100 per hour, where the default switches publish off).
 */
@Timeout(300)
class WritingCommandsTest
{
    @TempDir
    Path dir;

    private String table;

    @BeforeEach
    void writeTable() throws Exception
    {
        table = dir.resolve("t.map").toString();
        ChildJvm.run(dir, TestWriter.class, table);
    }

    @Test
    void resetNeverRepublishesTheClisDefaultsEvenWhenTheEnvironmentSaysPublish() throws Exception
    {
        final Cli.Result reset = CliProcess.run(dir, Map.of("FLOODGATE_POLICY", "publish"), "reset", "alice",
            "publish", "--file", table);
        assertEquals(0, reset.code(), reset::toString);
        assertEquals("reset alice publish: cleared window, blocked\n", reset.out());
        final Cli.Result policy = Cli.run("policy", "--file", table);
        assertTrue(policy.out().contains("publish limit=100 window_ms=3600000 mode=enforce\n"), policy::toString);
        assertTrue(policy.out().startsWith("generation 1\n"), "nothing was published: " + policy);
        assertEquals("", reset.err(), "no log line around a command's output");
    }

    @Test
    void policySetPublishesOnlyWhatTheUserNamedAndLogsNothing() throws Exception
    {
        final Cli.Result set = CliProcess.run(dir, Map.of("FLOODGATE_POLICY", "publish"), "policy", "set",
            "subscribe.limit=7", "--file", table);
        assertEquals(0, set.code(), set::toString);
        assertTrue(set.out().startsWith("published generation 2: subscribe_rate_limit: 0 -> 7\n"), set::toString);
        assertTrue(set.out().contains("publish limit=100 window_ms=3600000 mode=enforce\n"), set::toString);
        assertEquals("", set.err(), "no log line before a command's output");
    }

    /**
     * The engine refuses a relative {@code file} (each broker JVM would resolve it against its own working directory,
     * so two of them could enforce two tables); an operator in a shell types one naturally, so the CLI resolves
     * {@code --file}, {@code FLOODGATE_FILE} and {@code floodgate.file} against its working directory before the
     * engine sees them, and the worker JVMs of {@code bench} are given the absolute path.
     */
    @Test
    void aRelativeFileIsTheTableInTheWorkingDirectory() throws Exception
    {
        final Cli.Result reset = CliProcess.run(dir, dir, Map.of(), "reset", "alice", "publish", "--file", "t.map");
        assertEquals(0, reset.code(), reset::toString);
        assertEquals("reset alice publish: cleared window, blocked\n", reset.out());
        final Cli.Result set = CliProcess.run(dir, dir, Map.of("FLOODGATE_FILE", "t.map"), "policy", "set",
            "subscribe.limit=7");
        assertEquals(0, set.code(), set::toString);
        assertTrue(set.out().startsWith("published generation 2: subscribe_rate_limit: 0 -> 7\n"), set::toString);
        final Cli.Result stats = CliProcess.run(dir, dir, Map.of("JAVA_TOOL_OPTIONS", "-Dfloodgate.file=t.map"),
            "stats");
        assertEquals(0, stats.code(), stats::toString);
        assertTrue(stats.out().startsWith("file         " + dir.resolve("t.map") + " ("), stats::toString);
        final Cli.Result bench = CliProcess.run(dir, dir, Map.of(), "bench", "--processes", "1", "--threads", "1",
            "--keys", "1", "--duration", "1s", "--file", "scratch/b.map");
        assertEquals(0, bench.code(), bench::toString);
        assertTrue(bench.out().contains("table " + dir.resolve("scratch/b.map") + " ("), bench::toString);
    }

    @Test
    void anErrorIsTheOnlyLineOnStandardError() throws Exception
    {
        final Cli.Result bad = CliProcess.run(dir, Map.of(), "policy", "set", "publish.limit=-1", "--file", table);
        assertEquals(2, bad.code(), bad::toString);
        assertEquals("floodgate policy set: publish.limit=-1: expected a whole number from 0 to 4398046511103 " +
            "(0 switches it off)\n", bad.err());
        assertEquals("", bad.out());
    }

    @Test
    void verboseShowsTheEngineLogs() throws Exception
    {
        // a table from a previous boot is replaced by the first writer to open it, which the engine logs
        try (dev.floodgate.store.QuotaTable old = dev.floodgate.store.QuotaTable.open(java.nio.file.Path.of(table),
            1_000, 2, false, System.nanoTime()))
        {
            old.header().buffer().putLong(dev.floodgate.store.FileHeader.BOOT_ID_OFFSET, 12345L);
        }
        final Cli.Result quiet = CliProcess.run(dir, Map.of(), "reset", "alice", "publish", "--file", table);
        // the fresh table has no policy: reset publishes none, and is refused (exit 1, 3 until an operator's pass)
        assertEquals(1, quiet.code(), quiet::toString);
        assertTrue(quiet.err().contains("has no policy yet"), quiet::toString);
        assertEquals(1, quiet.err().strip().lines().count(), "the error alone: " + quiet.err());
        ChildJvm.run(dir, TestWriter.class, table); // a policy again: reset refuses a table without one unopened
        try (dev.floodgate.store.QuotaTable old = dev.floodgate.store.QuotaTable.open(java.nio.file.Path.of(table),
            1_000, 2, false, System.nanoTime()))
        {
            old.header().buffer().putLong(dev.floodgate.store.FileHeader.BOOT_ID_OFFSET, 12345L);
        }
        final Cli.Result verbose = CliProcess.run(dir, Map.of(), "reset", "--verbose", "alice", "publish", "--file",
            table);
        assertTrue(verbose.err().contains("was written under boot"), verbose::toString);
    }

    @Test
    void policySetRefusesAKeyGivenTwiceAndPublishesNothing()
    {
        final Cli.Result twice = Cli.run("policy", "set", "auth.limit=5", "auth.limit=6", "--file", table);
        assertEquals(2, twice.code(), twice::toString);
        assertEquals("floodgate policy set: 'auth.limit=6': auth.limit is already assigned by 'auth.limit=5'; " +
            "expected each key once\n", twice.err());
        final Cli.Result plus = Cli.run("policy", "set", "publish.limit=+100", "--file", table);
        assertEquals(2, plus.code(), plus::toString);
        assertEquals("floodgate policy set: publish.limit='+100': expected a whole number from 0 to 4398046511103 " +
            "(0 switches it off)\n", plus.err());
        assertTrue(Cli.run("policy", "--file", table).out().startsWith("generation 1\n"), "nothing was published");
    }

    @Test
    void policySetNamesTheKeyAsTypedWithItsBounds()
    {
        final Cli.Result negative = Cli.run("policy", "set", "publish.limit=-1", "--file", table);
        assertEquals(2, negative.code(), negative::toString);
        assertEquals("floodgate policy set: publish.limit=-1: expected a whole number from 0 to 4398046511103 " +
            "(0 switches it off)\n", negative.err());
        final Cli.Result letters = Cli.run("policy", "set", "publish.limit=abc", "--file", table);
        assertEquals(2, letters.code(), letters::toString);
        assertEquals("floodgate policy set: publish.limit='abc': expected a whole number from 0 to 4398046511103 " +
            "(0 switches it off)\n", letters.err());
        final Cli.Result login = Cli.run("policy", "set", "AUTH.limit=0", "--file", table);
        assertTrue(login.err().startsWith("floodgate policy set: AUTH.limit=0: expected a whole number from 1 to "),
            login::toString);
        final Cli.Result rate = Cli.run("policy", "set", "auth.limit=1031", "--file", table);
        assertEquals(2, rate.code(), rate::toString);
        assertTrue(rate.err().startsWith("floodgate policy set: auth.limit=1031 with auth.window_ms=3600000: the " +
            "token bucket cannot represent this rate"), rate::toString);
        assertTrue(Cli.run("policy", "--file", table).out().startsWith("generation 1\n"), "nothing was published");
    }

    @Test
    void policySetWithNoChangeKeepsTheGeneration()
    {
        final Cli.Result same = Cli.run("policy", "set", "publish.limit=100", "auth.mode=enforce", "--file", table);
        assertEquals(0, same.code(), same::toString);
        assertTrue(same.out().startsWith("policy unchanged: nothing published, still generation 1\n"),
            same::toString);
        assertTrue(Cli.run("policy", "--file", table).out().startsWith("generation 1\n"), "no new generation");
    }

    @Test
    void policySetOnAnUnwritableFileSaysThePolicyWasNotChanged() throws Exception
    {
        final Path file = Path.of(table);
        final boolean immutable = ResetCommandTest.makeUnwritable(file);
        try
        {
            org.junit.jupiter.api.Assumptions.assumeFalse(java.nio.file.Files.isWritable(file),
                "cannot make a file unwritable for this user here");
            final Cli.Result set = Cli.run("policy", "set", "publish.limit=5", "--file", table);
            assertEquals(1, set.code(), set::toString);
            assertEquals("floodgate policy set: " + table + ": not writable by this user, so the policy was not " +
                "changed (run as the brokers' user)\n", set.err());
        }
        finally
        {
            ResetCommandTest.makeWritable(file, immutable);
        }
    }
}
