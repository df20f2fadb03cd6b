package dev.floodgate.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * README.md (The floodgate command): exit 2 is a usage error, "a value out of range: the error names the option or
 * key as you typed it ... and its bounds", and "An error is the only line on standard error". A
 * {@code --cluster-redis} URI that passes the configuration's check but that Lettuce refuses (an upper-case
 * scheme, a port above 65535) instead ends bench with "unexpected failure, please report it" and Lettuce's stack
 * trace, exit 1 (found by the README review). Nothing listens on the URIs, so a fix that accepts the upper-case
 * scheme answers as for any Redis that does not answer: exit 1, one line naming the URI.
 */
@Timeout(120)
class ClusterRedisUriTest
{
    @TempDir
    Path dir;

    @Test
    void benchRefusesAPortOutOfRangeAsAUsageErrorOnOneLine()
    {
        final Cli.Result bench = bench("redis://127.0.0.1:99999/0");
        assertEquals(2, bench.code(), bench::toString);
        assertTrue(bench.err().contains("--cluster-redis redis://127.0.0.1:99999/0"), bench::toString);
    }

    @Test
    void benchAnswersAnUpperCaseSchemeOnOneLineNamingTheUri()
    {
        final Cli.Result bench = bench("REDIS://127.0.0.1:1/0");
        assertTrue(bench.code() == 1 || bench.code() == 2, bench::toString);
        assertTrue(bench.err().contains("REDIS://127.0.0.1:1"), bench::toString);
    }

    private Cli.Result bench(final String uri)
    {
        final Cli.Result bench = Cli.run("bench", "--processes", "1", "--threads", "1", "--keys", "1",
            "--duration", "1s", "--cluster-redis", uri, "--file", dir.resolve("b.map").toString());
        assertFalse(bench.err().contains("unexpected failure"), bench::toString);
        assertEquals(1, bench.err().strip().lines().count(), "an error is the only line on standard error: " + bench);
        assertFalse(bench.out().contains("Floodgate bench:"), "workers were started first: " + bench);
        return bench;
    }
}
