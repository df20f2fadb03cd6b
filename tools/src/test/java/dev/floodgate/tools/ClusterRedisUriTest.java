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
    /** What bench takes for {@code --cluster-redis}, as its errors say it. */
    private static final String TAKEN = "redis://host[:port][/database] or rediss://host[:port][/database] (a port " +
        "from 1 to 65535, a numeric database)";

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
     * {@code bench --cluster-redis nothing://} said "--cluster-redis nothing:// --cluster-limit 1000 per 3600000 ms:
     * cluster_redis_uri='nothing://': expected a redis://, rediss:// or redis-socket:// URI, or blank for no cluster
     * quota (Expected authority at index 10)": the URI twice, options the user did not type and that are not wrong,
     * the engine's key, and two forms bench refuses (a blank, a unix socket). Now the option, the URI and what bench
     * takes, once; a blank URI is named with the same expectation (it named {@code redis://} alone).
     */
    @Test
    void benchNamesABadUriOnceWithWhatItTakes()
    {
        for (final String uri : new String[] {"nothing://", "redis://", "http://x", "redis://h:6379/db", ""})
        {
            final Cli.Result bench = bench(uri);
            assertEquals(2, bench.code(), bench::toString);
            final String shown = uri.isEmpty() ? "''" : uri;
            assertEquals("floodgate bench: --cluster-redis " + shown + ": expected " + TAKEN +
                " (see floodgate bench --help)\n", bench.err());
        }
    }

    /**
     * {@code demo --cluster --cluster-limit 4398046511103} (the limit times demo's day-long window is past what
     * Redis's Lua counts exactly) was refused naming "--cluster-redis redis://127.0.0.1:6379/0", an option demo
     * does not have, with a URI the user never typed (the placeholder its check used). Now only the values at
     * fault.
     */
    @Test
    void aClusterLimitErrorNamesNoUriTheUserDidNotType()
    {
        final Cli.Result demo = Cli.run("demo", "--cluster", "--cluster-limit", "4398046511103");
        assertEquals(2, demo.code(), demo::toString);
        assertTrue(demo.err().startsWith("floodgate demo: --cluster-limit 4398046511103 per 86400000 ms"),
            demo::toString);
        assertFalse(demo.err().contains("redis"), demo::toString);
        assertEquals(1, demo.err().strip().lines().count(), demo::toString);
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
