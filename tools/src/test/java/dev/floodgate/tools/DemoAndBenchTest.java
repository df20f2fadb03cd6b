package dev.floodgate.tools;

import dev.floodgate.JvmFlags;
import dev.floodgate.testkit.ProcessTree;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** demo and bench end to end: their worker JVMs write, the command checks the totals and cleans up. */
class DemoAndBenchTest
{
    @TempDir
    Path dir;

    @Test
    void demoAdmitsExactlyTheQuotasAndRemovesItsTable()
    {
        final Cli.Result result = Cli.run("demo", "--processes", "2", "--threads", "2", "--seconds", "1");
        assertEquals(0, result.code(), result::toString);
        final String out = result.out();
        final int starting = out.indexOf("starting 2 worker JVMs for 1.0s ...\n");
        assertTrue(starting >= 0 && starting < out.indexOf("  running "), "says so before the JVMs start: " + out);
        assertTrue(out.contains("publish  alice: 50,000 admitted of "), out);
        assertTrue(out.contains("auth     4 IPs: 40 admitted of "), out);
        assertTrue(out.contains("OK: 2 JVMs together admitted exactly what the quotas allow."), out);
        assertTrue(out.contains("#1") && out.contains("#2") && out.contains("total"), out);
        assertTrue(out.contains("window   alice        publish  50000/50000 used"), out);
        final Matcher table = Pattern.compile("table {4}(\\S+) \\(").matcher(out);
        assertTrue(table.find(), out);
        assertFalse(Files.exists(Path.of(table.group(1)).getParent()), "the demo's temporary directory is removed");
    }

    @Test
    void benchReportsThroughputLatencyAndExactness()
    {
        final Cli.Result result = Cli.run("bench", "--processes", "1", "--threads", "2", "--door", "bucket",
            "--keys", "4", "--duration", "1s", "--file", dir.resolve("bench.map").toString());
        assertEquals(0, result.code(), result::toString);
        final String out = result.out();
        assertTrue(out.contains("limit 5,000 per 7d00h per key"), out);
        assertTrue(out.contains("starting 1 worker JVM for 1.0s ...\n"), "says so before the JVMs start: " + out);
        assertTrue(out.contains("CHECKS/S") && out.contains("#1"), out);
        assertTrue(out.matches("(?s).*p50 [\\d,]+  p90 [\\d,]+  p99 [\\d,]+  p99\\.9 [\\d,]+  p99\\.99 [\\d,]+  " +
            "max [\\d,]+.*"), out);
        assertTrue(out.contains("exact: the quotas allow 20,000 and 20,000 were admitted"), out);
        assertFalse(Files.exists(dir.resolve("bench.map")), "the scratch table is removed");
        assertFalse(Files.exists(dir.resolve("bench.map.lock")), "and the engine's lock file beside it");
    }

    @Test
    void benchsDefaultLimitIsReachedSoItsExactnessLineMeansSomething()
    {
        final Cli.Result result = Cli.run("bench", "--processes", "1", "--threads", "1", "--keys", "4",
            "--duration", "1s");
        assertEquals(0, result.code(), result::toString);
        final String out = result.out();
        final Matcher refusals = Pattern.compile("refusals ([\\d,]+) counted by the JVMs").matcher(out);
        assertTrue(refusals.find(), out);
        assertFalse(refusals.group(1).equals("0"), "no check was refused: " + out);
        assertTrue(out.contains("exact: the quotas allow 4,000 and 4,000 were admitted"), out);
        final Matcher table = Pattern.compile("  table (\\S+) \\(").matcher(out);
        assertTrue(table.find(), out);
        final Path shm = Path.of("/dev/shm");
        if (Files.isDirectory(shm) && Files.isWritable(shm) && !result.err().contains("no scratch table under"))
        {
            assertTrue(table.group(1).startsWith("/dev/shm/floodgate-bench-"), "where a broker's table lives: " + out);
        }
        assertFalse(Files.exists(Path.of(table.group(1)).getParent()), "the bench's temporary directory is removed");
    }

    @Test
    @Timeout(value = 90, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a bench that never prints ends in 60 s
    void benchStoppedBySigtermRemovesItsTable() throws Exception
    {
        // under /dev/shm a table left behind would hold RAM until the host reboots
        final Process bench = new ProcessBuilder(JvmFlags.javaCommand(FloodgateCli.class.getName(),
            System.getProperty("java.class.path"), List.of("-Xmx128m"),
            List.of("bench", "--processes", "1", "--threads", "1", "--keys", "4", "--duration", "60s")))
            .redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(bench.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            Path table = null;
            final StringBuilder seen = new StringBuilder();
            for (String line = out.readLine(); line != null; line = out.readLine()) // ends when bench does
            {
                seen.append(line).append('\n');
                final Matcher named = Pattern.compile("  table (\\S+) \\(").matcher(line);
                if (named.find())
                {
                    table = Path.of(named.group(1));
                }
                if (line.contains("  running ") && table != null)
                {
                    break;
                }
            }
            assertTrue(table != null && Files.exists(table), "bench is running on its table: " + seen);
            bench.destroy(); // SIGTERM, as a user's Ctrl-C or a service manager's stop
            assertTrue(bench.waitFor(30, TimeUnit.SECONDS), "bench ends on SIGTERM");
            assertFalse(Files.exists(table.getParent()), "its temporary directory is removed: " + table.getParent());
        }
        finally
        {
            ProcessTree.kill(bench); // its worker too, on a path that failed early
        }
    }

    @Test
    void loadCommandsRefuseToWriteIntoAnExistingTableAndCheckTheirOptions() throws Exception
    {
        final Path existing = Files.writeString(dir.resolve("brokers.map"), "precious");
        final Cli.Result bench = Cli.run("bench", "--file", existing.toString());
        assertEquals(1, bench.code(), bench::toString);
        assertTrue(bench.err().contains("exists"), bench.err());
        assertEquals(1, Cli.run("demo", "--file", existing.toString()).code());
        assertEquals("precious", Files.readString(existing));
        assertEquals(2, Cli.run("bench", "--door", "nope").code());
        assertEquals(2, Cli.run("bench", "--duration", "soon").code());
        assertEquals(2, Cli.run("demo", "--processes", "0").code());
    }
}
