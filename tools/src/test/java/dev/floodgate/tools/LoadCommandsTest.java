package dev.floodgate.tools;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.testkit.LocalRedis;
import dev.floodgate.testkit.ProcessTree;
import dev.floodgate.tools.cluster.ClusterQuota;
import dev.floodgate.tools.cluster.ClusterTally;
import dev.floodgate.tools.load.Exactness;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.List;
import dev.floodgate.tools.cluster.ServerConnection;
import dev.floodgate.tools.load.LoadRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The load commands (demo, bench) as a user meets them: usage errors before any work, verdicts that claim only what
 * a run showed, figures that stay numbers, and no worker JVM or Redis bucket left behind. Runs are as short as still
 * shows each behaviour, and one run shows what it can.
 */
class LoadCommandsTest
{
    @TempDir
    Path dir;

    /**
     * {@code demo --cluster --cluster-limit 0} is a usage error, found before the demo starts (and, when absent,
     * installs) a redis-server: on a host without redis-server the user is told what is wrong with the option.
     */
    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS)
    void clusterDemoChecksItsOptionsBeforeItNeedsARedisServer() throws Exception
    {
        final Path emptyBin = Files.createDirectory(dir.resolve("bin")); // no redis-server on this PATH
        final Cli.Result result = CliProcess.run(dir, Map.of("PATH", emptyBin.toString(),
            "FLOODGATE_REDIS_ENSURE", "/bin/false"), "demo", "--cluster", "--cluster-limit", "0");
        assertEquals(2, result.code(), result::toString);
        assertTrue(result.err().contains("--cluster-limit 0"), result::toString);
    }

    /**
     * {@code --cluster-limit} and {@code --cluster-lease} without {@code --cluster} are usage errors ("would be
     * ignored"), and so is the reverse: with {@code --cluster} the node demo's {@code --ips},
     * {@code --publish-limit} and {@code --auth-limit} would be neither validated nor used.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void clusterDemoRefusesTheNodeDemosOptionsItWouldIgnore()
    {
        for (final String[] option : new String[][] {{"--ips", "0"}, {"--publish-limit", "-5"}, {"--auth-limit", "10"}})
        {
            final Cli.Result result = Cli.run("demo", "--cluster", "--processes", "1", "--threads", "1", "--seconds",
                "1", option[0], option[1]);
            assertEquals(2, result.code(), result::toString);
            assertTrue(result.err().contains(option[0] + ": not with --cluster"), result::toString);
        }
    }

    /**
     * One cluster demo of 1 s, its quota far above what it can attempt, shows two things. The verdict: every check
     * is admitted, and EXACT (or WITHIN) and "stayed within the cluster quota" would claim what was never tested (the
     * node path says "exactness not tested"). The allowance: it is the bucket's refill over the run's length, not
     * over the release delay and the teardown too (1.4 s for a 1 s run), which would hide an over-admission of that
     * much refill.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void clusterVerdictIsOverTheRunAndNotClaimedWhenTheQuotaWasNeverReached()
    {
        final Cli.Result result = Cli.run("demo", "--cluster", "--processes", "1", "--threads", "1", "--seconds", "1",
            "--cluster-limit", "100000000", "--cluster-lease", "0");
        final String out = result.out();
        assertEquals(0, result.code(), result::toString);
        assertFalse(out.matches("(?s).*\n(EXACT|WITHIN): .*"), "a verdict on a quota no identifier reached: " + out);
        assertTrue(out.contains("\nNOT TESTED: ") && out.contains("OK, but the cluster quota was not tested"), out);
        final Matcher over = Pattern.compile(" over the run's ([\\d.]+)s the bucket").matcher(out);
        assertTrue(over.find(), result::toString);
        final double seconds = Double.parseDouble(over.group(1));
        assertTrue(seconds >= 0.9 && seconds <= 1.1, "a run of 1.0 s judged over " + seconds + " s of refill: " + out);
    }

    /**
     * The parent of the worker JVMs is killed (SIGKILL: the OOM killer, a CI job's timeout, kill -9): no shutdown
     * hook runs. Its workers notice the end of their standard input, which they read from the start, and stop: they
     * do not check on until their end time, up to 10 minutes later (plus a warm-up of up to 10 more), with the table
     * left under /dev/shm (as the command's redis-server has its watchdog).
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void workersDoNotOutliveASigkilledBench() throws Exception
    {
        final Process bench = new ProcessBuilder(dev.floodgate.JvmFlags.javaCommand(FloodgateCli.class.getName(),
            System.getProperty("java.class.path"), java.util.List.of("-Xmx128m"),
            java.util.List.of("bench", "--processes", "1", "--threads", "1", "--keys", "4", "--duration", "90s",
                "--file", dir.resolve("bench.map").toString())))
            .redirectErrorStream(true).start();
        java.util.List<ProcessHandle> workers = java.util.List.of();
        final java.util.Set<Path> logDirs = new java.util.HashSet<>();
        try (java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(
            bench.getInputStream(), java.nio.charset.StandardCharsets.UTF_8)))
        {
            final StringBuilder seen = new StringBuilder();
            for (String line = out.readLine(); line != null; line = out.readLine())
            {
                seen.append(line).append('\n');
                if (line.contains("  running "))
                {
                    break; // the workers were released
                }
            }
            workers = bench.toHandle().descendants().toList();
            assertFalse(workers.isEmpty(), "bench runs its workers: " + seen);
            for (final ProcessHandle worker : workers)
            {
                // the workers' logs are in a temporary directory of the bench's, which no hook removes after SIGKILL
                final Path log = Files.readSymbolicLink(Path.of("/proc", Long.toString(worker.pid()), "fd", "2"));
                logDirs.add(log.getParent());
            }
            bench.destroyForcibly(); // SIGKILL
            assertTrue(bench.waitFor(10, TimeUnit.SECONDS));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            for (final ProcessHandle worker : workers)
            {
                try
                {
                    worker.onExit().get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                }
                catch (final java.util.concurrent.TimeoutException stillRunning)
                {
                    // asserted below
                }
                assertFalse(worker.isAlive(), "worker " + worker.pid() + " still runs 15 s after its bench was killed");
            }
        }
        finally
        {
            ProcessTree.kill(bench); // its workers too, on a failure before they were listed
            for (final ProcessHandle worker : workers)
            {
                worker.destroyForcibly();
                worker.onExit().get(10, TimeUnit.SECONDS);
            }
            Files.deleteIfExists(dir.resolve("bench.map"));
            Files.deleteIfExists(dir.resolve("bench.map.lock"));
            for (final Path logs : logDirs)
            {
                try (java.util.stream.Stream<Path> files = Files.walk(logs))
                {
                    files.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
                }
            }
        }
    }

    /**
     * {@code --warmup} accepts up to 10 minutes, and a worker warms up before it says READY: the time the parent
     * gives READY is the table's opening plus the warm-up, so a long warm-up is not taken for "a worker did not open
     * the table" (a run with such a warm-up takes minutes: the deadline is checked, not waited for).
     */
    @Test
    void aLongWarmupIsNotTakenForAWorkerThatCannotOpenTheTable()
    {
        final long opening = LoadRun.readyTimeoutNanos(0);
        assertTrue(opening >= TimeUnit.SECONDS.toNanos(60), "time to open the table on a busy host: " + opening);
        final long longest = TimeUnit.MINUTES.toNanos(10);
        assertEquals(opening + longest, LoadRun.readyTimeoutNanos(longest));
    }

    /**
     * bench accepts {@code --keys} up to 1,000,000 and {@code --threads} up to 256, each alone; every load thread of
     * a worker counts every key (two longs each). The threads share the identifiers and the worker's heap is sized
     * for the counters, and a product beyond what is sized for is refused up front naming both options, rather than
     * failing after the whole run with "a worker failed" (OutOfMemoryError).
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void keysAndThreadsTheWorkersHeapCannotHoldAreRefusedUpFront()
    {
        final Cli.Result result = Cli.run("bench", "--processes", "1", "--threads", "64", "--keys", "100000",
            "--duration", "1s");
        assertEquals(2, result.code(), result::toString);
        assertTrue(result.err().contains("--keys 100000 with --threads 64"), result::toString);
    }

    /**
     * A cluster bench's buckets are Redis keys named after its identifiers: each run has identifiers of its own and
     * deletes their buckets afterwards. Otherwise a second bench against the same Redis within the cluster window
     * starts from the buckets the first drained, while the verdict assumes them full (WRONG, "short by ..."), and
     * against a shared Redis a bench spends the quota of whoever is called key-0.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aSecondClusterBenchAgainstTheSameRedisIsJudgedOnItsOwnRun() throws Exception
    {
        try (dev.floodgate.testkit.LocalRedis redis = dev.floodgate.testkit.LocalRedis.start())
        {
            final String[] args = {"bench", "--processes", "1", "--threads", "1", "--keys", "2", "--duration", "1s",
                "--cluster-redis", redis.uri(), "--cluster-limit", "500", "--cluster-lease", "50"};
            final Cli.Result first = Cli.run(args);
            assertEquals(0, first.code(), first::toString);
            final Cli.Result second = Cli.run(args);
            assertEquals(0, second.code(), second::toString);
            try (ServerConnection server = ServerConnection.open(redis.uri()))
            {
                assertEquals(java.util.List.of(), server.commands().keys("floodgate:*"), "the runs' buckets are left");
            }
        }
    }

    /**
     * {@code --duration 1ms} is accepted, and a worker whose threads all wake after the end makes no check in no
     * time: its CHECKS/S is "-", not NaN, and the total is every check over the longest time (not a sum of rates,
     * NaN with one NaN). The latency line says how many samples its percentiles come from. Several JVMs on a shared
     * host make a worker miss a 1 ms run most times; a fixed bench prints no NaN whichever way the run goes.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aWorkerThatMadeNoCheckHasNoNanRate()
    {
        final Cli.Result result = Cli.run("bench", "--processes", "4", "--threads", "1", "--door", "bucket",
            "--keys", "4", "--duration", "1ms");
        assertEquals(0, result.code(), result::toString);
        assertFalse(result.out().contains("NaN") || result.out().contains("Infinity"), result::toString);
        assertTrue(result.out().matches("(?s).*latency per check \\(ns, timer included, [\\d,]+ samples\\).*"),
            result::toString);
    }

    /**
     * Ctrl-C (SIGTERM) while bench is still starting its workers: the reaper hook kills the workers started so far,
     * and the command's thread starts no worker once the hook has begun (one lock for both), so none is missed. With
     * {@code --keep} (the table stays, so they open it) and a warm-up a missed one would run on for the warm-up.
     */
    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void workersStartedWhileBenchIsStoppedAreReapedToo() throws Exception
    {
        final Path table = dir.resolve("orphans.map");
        final Process bench = new ProcessBuilder(dev.floodgate.JvmFlags.javaCommand(FloodgateCli.class.getName(),
            System.getProperty("java.class.path"), java.util.List.of("-Xmx128m", "-Djava.io.tmpdir=" + dir),
            java.util.List.of("bench", "--processes", "12", "--threads", "1", "--keys", "4", "--duration", "1s",
                "--warmup", "60s", "--keep", "--file", table.toString())))
            .redirectErrorStream(true).start();
        try (java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(
            bench.getInputStream(), java.nio.charset.StandardCharsets.UTF_8)))
        {
            final StringBuilder seen = new StringBuilder();
            for (String line = out.readLine(); line != null; line = out.readLine())
            {
                seen.append(line).append('\n');
                if (line.startsWith("starting 12 worker JVMs"))
                {
                    break;
                }
            }
            final long started = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (workersOf(table).isEmpty() && System.nanoTime() - started < 0)
            {
                Thread.onSpinWait(); // polling the process table for the first worker, not a synchronisation stand-in
            }
            bench.destroy(); // SIGTERM while the workers are being started
            assertTrue(bench.waitFor(60, TimeUnit.SECONDS), "bench ends on SIGTERM: " + seen);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
            for (java.util.List<ProcessHandle> left = workersOf(table); !left.isEmpty() &&
                System.nanoTime() - deadline < 0; left = workersOf(table))
            {
                try
                {
                    left.get(0).onExit().get(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                }
                catch (final java.util.concurrent.TimeoutException stillRunning)
                {
                    // asserted below
                }
            }
        }
        finally
        {
            bench.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        final java.util.List<ProcessHandle> orphans = workersOf(table);
        try
        {
            assertTrue(orphans.isEmpty(), orphans.size() + " worker JVMs still run 15 s after their bench ended");
        }
        finally
        {
            for (final ProcessHandle orphan : orphans)
            {
                orphan.destroyForcibly();
                orphan.onExit().get(10, TimeUnit.SECONDS);
            }
        }
    }

    /** The live processes whose command line holds the table's path (read from /proc: the JDK's view is cut). */
    private static java.util.List<ProcessHandle> workersOf(final Path table)
    {
        final String wanted = table.toString();
        return ProcessHandle.allProcesses().filter(p ->
        {
            try
            {
                final String cmdline = new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()),
                    "cmdline")), java.nio.charset.StandardCharsets.UTF_8);
                return p.isAlive() && java.util.Arrays.asList(cmdline.split("\u0000")).contains(wanted);
            }
            catch (final java.io.IOException | RuntimeException gone)
            {
                return false;
            }
        }).toList();
    }

    /**
     * The allowance is the refill over the run's length: it was read in Redis's time when {@code ended()} got round
     * to it, after the progress line and a new Redis connection. With a quota refilling a token per ms, a 1.0 s run
     * was judged over 1,018 tokens of refill on a quiet host: an over-admission of that size would pass.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void theClusterAllowanceEndsAtTheRunsEndNotWhenItWasRead() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final Cli.Result r = Cli.run("bench", "--processes", "1", "--threads", "1", "--keys", "1", "--duration",
                "1s", "--cluster-redis", redis.uri(), "--cluster-limit", "1000", "--cluster-window", "1s",
                "--cluster-lease", "1");
            final Matcher m = Pattern.compile("\\(1,000 at the start, ([\\d,]+) refilled\\)").matcher(r.out());
            assertTrue(m.find(), r::toString);
            final long refilled = Long.parseLong(m.group(1).replace(",", ""));
            // 1 token per ms over a 1,000 ms run, and 2 for rounding
            assertTrue(refilled <= 1_002, "a 1.0 s run judged over " + refilled + " ms of refill: " + r);
        }
    }

    /**
     * Two nodes lease 5 each of an identifier's 10; one node's threads attempt 6 (one refused by the cluster), the
     * other's 4 (one token leased and unspent). The quota did refuse, within the lease bound: WITHIN. The tally
     * says NOT TESTED, "the quota never had to refuse", because it asks whether attempts exceeded the allowance
     * instead of whether anything was refused.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aRunInWhichTheClusterRefusedIsNotCalledNotTested() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            // a run of 1 ms against a 1 h window: the allowance is the limit, 10
            final ClusterTally tally = oneMsRun(new ClusterQuota(redis.uri(), Action.PUBLISH, 10, 3_600_000L, 5));
            final StringWriter text = new StringWriter();
            final ClusterTally.Verdict verdict = tally.print(new PrintWriter(text, true), alicePublished(9, 1), 2,
                new ClusterStats.Checks(1, 0, 0));
            assertTrue(text.toString().contains("allows 10 each"), text::toString);
            assertEquals(ClusterTally.Verdict.WITHIN, verdict, text::toString);
        }
    }

    /**
     * A node may hold up to three leases and a quarter unspent for a moment, and half a lease more while the
     * cluster's bucket is drained (NOTES, "Lease size"): a run short by three leases on one node is within what the
     * engine promises. The tally's bound was two leases a node, so it called such a run WRONG and exited 1.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void aRunShortByWhatTheEngineMayHoldUnspentIsWithin() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final ClusterTally tally = oneMsRun(new ClusterQuota(redis.uri(), Action.PUBLISH, 100, 3_600_000L, 10));
            final StringWriter text = new StringWriter();
            assertEquals(ClusterTally.Verdict.WITHIN, tally.print(new PrintWriter(text, true), alicePublished(70, 50),
                1, new ClusterStats.Checks(50, 0, 0)), text::toString);
            assertTrue(text.toString().contains("within the 38 the 1 node may hold"), text::toString);
            assertEquals(ClusterTally.Verdict.WRONG, tally.print(new PrintWriter(new StringWriter(), true),
                alicePublished(61, 50), 1, new ClusterStats.Checks(50, 0, 0)),
                "short by 39: more than a node may hold");
        }
    }

    /**
     * A check refused for want of a lease (a cold node's first lease slower than a check's 50 ms wait, beside four
     * CPU hogs) shows nothing about the cluster's quota: a run of 4 million checks against a limit of 100 million,
     * 2 of them refused by the fallback, was called WITHIN ("short by 2") instead of NOT TESTED.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void refusalsForWantOfALeaseDoNotTestTheQuota() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final ClusterTally tally = oneMsRun(new ClusterQuota(redis.uri(), Action.PUBLISH, 100, 3_600_000L, 10));
            final StringWriter text = new StringWriter();
            assertEquals(ClusterTally.Verdict.NOT_TESTED, tally.print(new PrintWriter(text, true),
                alicePublished(40, 2), 1, new ClusterStats.Checks(0, 2, 0)), text::toString);
            assertTrue(text.toString().contains("fallback 2 checks refused for want of a lease"), text::toString);
        }
    }

    /** @return the tally of a run of 1 ms against {@code quota}, ended. */
    private static ClusterTally oneMsRun(final ClusterQuota quota)
    {
        final long start = System.nanoTime();
        final ClusterTally tally = ClusterTally.begin(quota, start, start + 1_000_000L);
        tally.end();
        return tally;
    }

    /** @return the run's totals: alice's publishes, {@code admitted} and {@code refused}, and nothing else. */
    private static Map<String, Exactness.KeyTotal> alicePublished(final long admitted, final long refused)
    {
        return Map.of("publish alice", new Exactness.KeyTotal(Action.PUBLISH, "alice", admitted, refused));
    }

    /**
     * Ctrl-C (SIGTERM) of a {@code bench --cluster-redis} deletes the run's buckets too: the deletion was in a
     * finally block of the command's thread, which a JVM halting after its hooks never reaches, and they stayed for
     * 2 windows + 1 min (2 h 1 min by default) on a shared Redis. It runs after the workers are reaped now.
     */
    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)
    void aBenchStoppedByCtrlCStillDeletesItsClusterBuckets() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final Process bench = new ProcessBuilder(dev.floodgate.JvmFlags.javaCommand(FloodgateCli.class.getName(),
                System.getProperty("java.class.path"), List.of("-Xmx128m"),
                List.of("bench", "--processes", "1", "--threads", "1", "--keys", "2", "--duration", "60s",
                    "--file", dir.resolve("bench.map").toString(), "--cluster-redis", redis.uri(),
                    "--cluster-limit", "100", "--cluster-lease", "10")))
                .redirectErrorStream(true).start();
            try (BufferedReader out = new BufferedReader(new InputStreamReader(bench.getInputStream(),
                StandardCharsets.UTF_8)))
            {
                final StringBuilder seen = new StringBuilder();
                for (String line = out.readLine(); line != null; line = out.readLine())
                {
                    seen.append(line).append('\n');
                    if (line.contains("  running ") && !line.contains(" 0 admitted"))
                    {
                        break; // the workers have leased: the buckets exist
                    }
                }
                try (ServerConnection server = ServerConnection.open(redis.uri()))
                {
                    assertFalse(server.commands().keys("floodgate:publish:bench-*").isEmpty(), seen::toString);
                    bench.destroy(); // SIGTERM, as Ctrl-C's SIGINT
                    assertTrue(bench.waitFor(30, TimeUnit.SECONDS), "bench did not stop on SIGTERM");
                    assertEquals(List.of(), server.commands().keys("floodgate:*"),
                        "a stopped bench left its run's buckets in Redis");
                }
            }
            finally
            {
                ProcessTree.kill(bench); // with its workers
            }
        }
    }
}
