package dev.floodgate.tools;

import dev.floodgate.testkit.LocalRedis;
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

    /**
     * A unix socket (README: {@code redis-socket://path}, "any URI it accepts") needs Netty's epoll or kqueue
     * transport, which the CLI's jar does not carry: Lettuce threw inside bench's first connection, and bench ended
     * with "unexpected failure, please report it" and a stack trace, exit 1 (found by the README review). Where a
     * transport is on the class path, nothing listens on the socket: exit 1, one line naming the URI.
     */
    @Test
    void benchAnswersAUnixSocketOnOneLineNamingTheUri()
    {
        final String uri = "redis-socket://" + dir.resolve("redis.sock");
        final Cli.Result bench = bench(uri);
        assertTrue(bench.code() == 1 || bench.code() == 2, bench::toString);
        assertTrue(bench.err().contains("--cluster-redis " + uri), bench::toString);
    }

    /**
     * README.md: the cluster URI's "password is never printed". bench printed {@code --cluster-redis} as typed, the
     * password with it, in its errors and in the run's header (found by the README review).
     */
    @Test
    void benchNeverPrintsTheUrisPassword() throws Exception
    {
        final Cli.Result outOfRange = bench("redis://:s3cret@127.0.0.1:99999/0");
        assertEquals(2, outOfRange.code(), outOfRange::toString);
        assertFalse(outOfRange.err().contains("s3cret"), outOfRange::toString);
        final Cli.Result nobodyThere = bench("redis://:s3cret@127.0.0.1:1/0");
        assertEquals(1, nobodyThere.code(), nobodyThere::toString);
        assertTrue(nobodyThere.err().contains("--cluster-redis redis://***@127.0.0.1:1/0"), nobodyThere::toString);
        try (LocalRedis redis = LocalRedis.start())
        {
            redis.commands().configSet("requirepass", "s3cret"); // the test's connection stays authenticated
            final Cli.Result run = Cli.run("bench", "--processes", "1", "--threads", "1", "--keys", "1",
                "--duration", "1s", "--cluster-redis", "redis://:s3cret@127.0.0.1:" + redis.port() + "/0",
                "--file", dir.resolve("p.map").toString());
            assertEquals(0, run.code(), run::toString);
            assertTrue(run.out().contains("from redis://***@127.0.0.1:" + redis.port() + "/0"), run::toString);
            assertFalse(run.out().contains("s3cret") || run.err().contains("s3cret"), run::toString);
            // a wrong password is not a server that is down: bench said only "no Redis answers there (PING)"
            final Cli.Result wrong = bench("redis://:wr0ng@127.0.0.1:" + redis.port() + "/0");
            assertEquals(1, wrong.code(), wrong::toString);
            assertTrue(wrong.err().contains("WRONGPASS"), wrong::toString);
            assertFalse(wrong.err().contains("wr0ng"), wrong::toString);
        }
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
