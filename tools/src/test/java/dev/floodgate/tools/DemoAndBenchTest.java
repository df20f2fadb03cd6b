package dev.floodgate.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
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
