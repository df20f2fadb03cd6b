package dev.floodgate.tools;

import dev.floodgate.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What an operator met using every command against live tables (found by a review of the CLI; each failed before):
 * each test states what the operator saw.
 */
@Timeout(300)
class OperatorMistakesTest
{
    @TempDir
    Path dir;

    /**
     * {@code floodgate watch --json | head -1} (or a log shipper that dies) never returns: the PrintWriter swallows
     * the broken pipe, so watch maps and reads the table every interval forever, an orphan nobody reads.
     */
    @Test
    void watchStopsWhenNobodyReadsItsOutputAnyMore() throws Exception
    {
        final String table = dir.resolve("t.map").toString();
        assertEquals("ADMITTED 10 10 100 1", ChildJvm.run(dir, TestWriter.class, table).trim());
        final Writer closedPipe = new Writer()
        {
            @Override
            public void write(final char[] buffer, final int offset, final int length) throws IOException
            {
                throw new IOException("Broken pipe");
            }

            @Override
            public void flush() throws IOException
            {
                throw new IOException("Broken pipe");
            }

            @Override
            public void close()
            {
            }
        };
        final StringWriter err = new StringWriter();
        assertTimeoutPreemptively(Duration.ofSeconds(15), () -> FloodgateCli.run(new PrintWriter(closedPipe),
            new PrintWriter(err), "watch", "--json", "--interval", "100ms", "--file", table),
            "watch kept refreshing into a closed standard output");
    }

    /**
     * {@code floodgate bench --cluster-limit 5} without {@code --cluster-redis} runs a plain bench and says
     * "exact", as if the cluster quota had been measured: the option is silently ignored (its help says "With
     * --cluster-redis").
     */
    @Test
    void benchRefusesClusterOptionsWithoutClusterRedis()
    {
        final Cli.Result bench = Cli.run("bench", "--processes", "1", "--threads", "1", "--keys", "1",
            "--duration", "1s", "--cluster-limit", "5", "--file", dir.resolve("b.map").toString());
        assertEquals(2, bench.code(), bench::toString);
        assertTrue(bench.err().contains("--cluster-limit") && bench.err().contains("--cluster-redis"),
            bench::toString);
    }

    /** {@code floodgate demo --cluster-limit 5} without {@code --cluster} runs the node demo, ignoring the limit. */
    @Test
    void demoRefusesClusterOptionsWithoutCluster()
    {
        final Cli.Result demo = Cli.run("demo", "--processes", "1", "--threads", "1", "--seconds", "1",
            "--cluster-limit", "5");
        assertEquals(2, demo.code(), demo::toString);
        assertTrue(demo.err().contains("--cluster-limit") && demo.err().contains("--cluster"), demo::toString);
    }

    /**
     * With a publish quota no run can reach, {@code demo} prints "alice: N admitted of N attempts; the quota allows
     * N - exact" and "OK: ... admitted exactly what the quotas allow": the quota never refused anything, so nothing
     * was shown ({@code bench} says "exactness not tested" in the same case).
     */
    @Test
    void demoDoesNotCallAQuotaThatNeverRefusedExact()
    {
        final Cli.Result demo = Cli.run("demo", "--processes", "1", "--threads", "1", "--seconds", "1",
            "--publish-limit", "4398046511103");
        final String publish = demo.out().lines().filter(line -> line.startsWith("publish  alice:")).findFirst()
            .orElseThrow(() -> new AssertionError(demo.toString()));
        assertFalse(publish.endsWith(" - exact"), "claims exactness for a quota that refused nothing: " + publish);
        assertTrue(publish.contains("not tested"), publish);
    }

    /** {@code floodgate stats --file ""} says "floodgate stats: : not a regular file": the bad value is not named. */
    @Test
    void anEmptyFileOptionIsNamed()
    {
        final Cli.Result stats = Cli.run("stats", "--file", "");
        assertTrue(stats.code() == 2 || stats.code() == 3, stats::toString);
        assertTrue(stats.err().contains("--file"), "the message does not say which value is wrong: " + stats);
    }

    /**
     * {@code floodgate cleanup} (or any mistyped command) says "Unmatched argument at index 0: 'cleanup'", without
     * the commands there are (no command at all lists them).
     */
    @Test
    void anUnknownCommandListsTheCommands()
    {
        final Cli.Result unknown = Cli.run("cleanup");
        assertEquals(2, unknown.code(), unknown::toString);
        assertTrue(unknown.err().contains("'cleanup'") && unknown.err().contains("expected one of ") &&
            unknown.err().contains("dump") && unknown.err().contains("stats"), unknown::toString);
    }

    /**
     * {@code floodgate bench --cluster-redis redis://127.0.0.1:1/0} (a wrong port) printed the banner, then said
     * nothing for a minute, then "cannot release worker: worker 1 still running, last error line: worker: not
     * connected to the cluster's Redis within 60 s", exit 1: the message is about workers, not the URI the operator
     * typed. Now it is refused before any table or worker is made.
     */
    @Test
    void benchSaysAtOnceThatItsRedisDoesNotAnswer()
    {
        final Cli.Result bench = Cli.run("bench", "--processes", "1", "--threads", "1", "--keys", "1",
            "--duration", "1s", "--cluster-redis", "redis://127.0.0.1:1/0");
        assertEquals(1, bench.code(), bench::toString);
        assertTrue(bench.err().contains("redis://127.0.0.1:1"), "the message does not name the URI: " + bench);
        assertFalse(bench.out().contains("Floodgate bench:"), "workers were started first: " + bench);
    }
}
