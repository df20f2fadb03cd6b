package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A soak of the cluster quota (issue 12) across nodes and JVMs on a real redis-server: three nodes (three table
 * files) of two {@link ClusterSoakChild} JVMs each hammer four cluster quotas through both doors and charges, while
 * this JVM, at random, stops and continues children (SIGSTOP, one stop in eight past the 3 s after which a sibling
 * takes a frozen fetcher's refill over), SIGKILLs one and starts another on its node, restarts a node's JVMs
 * gracefully (the last to close gives the node's leases back), and stops Redis (SIGSTOP, which keeps its data; one
 * stop in four past the lease's 1 s bound). The cluster windows are short, so idle leases are given back every few
 * hundred ms. Then {@link ClusterBound} judges each quota's admissions. No
 * fallback admits: every action refuses without a lease, so each admission is the cluster's.
 * {@code ClusterSoakTest} runs it for CI's time; {@link #main} for as long as asked, after
 * {@code mvn -B -q -o -pl engine test-compile dependency:build-classpath -Dmdep.outputFile=/tmp/cp.txt
 * -Dmdep.includeScope=test}:
 *
 * <pre>
 * java $(cat engine/target/classes/dev/floodgate/jvm.flags) \
 *     -cp engine/target/test-classes:engine/target/classes:$(cat /tmp/cp.txt) \
 *     dev.floodgate.testkit.ClusterSoak DIR SECONDS [SEED] [nostop]
 * </pre>
 *
 * ({@code nostop}: Redis is never stopped, so the busy quotas' exact bound stays tight over a long run: a Redis
 * stopped shorter than a window wastes refill no judge can prove, which loosens that bound.)
 */
public final class ClusterSoak
{
    /** The quotas: PUBLISH "hot" and AUTH always busy, PUBLISH "warm" and SUBSCRIBE quiet a third of the time. */
    static final String[] SERIES = {"hot", "warm", "sub", "10.0.0.1"};
    static final Action[] ACTIONS = {Action.PUBLISH, Action.PUBLISH, Action.SUBSCRIBE, Action.AUTH};
    static final int MAX_COST = 3;
    private static final long QUIET_PERIOD_NANOS = 3_000_000_000L;
    /** Per action above: cluster limit, window ms, lease (0: a tenth); PUBLISH's leases use balance lines. */
    private static final long[][] CLUSTER = {{200, 1_000, 20}, {200, 1_000, 20}, {30, 500, 3}, {20, 400, 0}};
    private static final int NODES = 3;
    private static final int JVMS_PER_NODE = 2;
    private static final int THREADS = 2;
    private static final long SAMPLE_NANOS = 250_000_000L;

    private final Path dir;
    private final Random random;
    private final List<long[]> redisStops = new ArrayList<>(); // {after the SIGSTOP, before the SIGCONT}
    private final List<LeaseSampler.Sample> samples = new ArrayList<>();
    private final boolean stopRedis;
    private long[] mostOnANode;

    private ClusterSoak(final Path dir, final long seed, final boolean stopRedis)
    {
        this.dir = dir;
        this.random = new Random(seed);
        this.stopRedis = stopRedis;
    }

    /** What a run did and found. */
    public record Report(String summary, List<String> exceeded, List<String> childErrors)
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final long seed = args.length > 2 ? Long.parseLong(args[2]) : System.nanoTime();
        final Report report = run(Path.of(args[0]), Long.parseLong(args[1]), seed,
            !(args.length > 3 && args[3].equals("nostop")));
        System.out.println(report.summary());
        report.exceeded().forEach(System.out::println);
        report.childErrors().forEach(System.out::println);
        System.exit(report.exceeded().isEmpty() && report.childErrors().isEmpty() ? 0 : 1);
    }

    /**
     * @param dir       where the tables and the children's files go.
     * @param seconds   how long the children hammer.
     * @param seed      the parent's choices (the children's interleavings do not repeat).
     * @param stopRedis whether Redis is stopped and continued too.
     * @return what it did and found.
     */
    public static Report run(final Path dir, final long seconds, final long seed, final boolean stopRedis)
        throws Exception
    {
        return new ClusterSoak(dir, seed, stopRedis).soak(seconds, seed);
    }

    /** @return a node's configuration: node quotas far above the cluster's, which refuse without a lease. */
    static FloodgateConfig config(final Path file, final String uri)
    {
        final FloodgateConfig.Builder builder = FloodgateConfig.builder().file(file).capacity(1_000)
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).cleanupIntervalMs(500).clusterRedisUri(uri);
        for (int s = 0; s < SERIES.length; s++)
        {
            builder.limit(ACTIONS[s], 1_000_000, 1_000).clusterLimit(ACTIONS[s], CLUSTER[s][0], CLUSTER[s][1])
                .clusterLease(ACTIONS[s], CLUSTER[s][2]).clusterFallbackLocal(ACTIONS[s], false);
        }
        return builder.build();
    }

    /** @return whether {@code series} is idle now: the warm ones in their quiet third of every 3 s. */
    static boolean quiet(final int series)
    {
        return (series == 1 || series == 2) && Math.floorMod(System.nanoTime() / QUIET_PERIOD_NANOS + series, 3) == 0;
    }

    private Report soak(final long seconds, final long seed) throws Exception
    {
        final Path go = dir.resolve("go");
        final long[] started = {0};
        try (LocalRedis redis = LocalRedis.start();
             SoakChildren children = new SoakChildren(dir, THREADS, (node, admissions, inflight, stop) ->
                 ChildJvm.start(ClusterSoakChild.class, dir.resolve("node" + node + ".map").toString(), redis.uri(),
                     admissions.toString(), inflight.toString(), stop.toString(), go.toString(),
                     Long.toString(seed * 1000 + started[0]++), Integer.toString(THREADS))))
        {
            for (int node = 0; node < NODES; node++)
            {
                for (int jvm = 0; jvm < JVMS_PER_NODE; jvm++)
                {
                    children.start(node);
                }
            }
            children.awaitReady(120);
            final List<Path> files = new ArrayList<>();
            for (int node = 0; node < NODES; node++)
            {
                files.add(dir.resolve("node" + node + ".map"));
            }
            final long originMs;
            final long origin;
            try (LeaseSampler sampler = new LeaseSampler(files, SERIES, ACTIONS))
            {
                originMs = redis.timeMs();
                origin = System.nanoTime(); // the buckets are full: nothing checked them yet
                Files.createFile(go);
                chaos(redis, children, sampler, origin + TimeUnit.SECONDS.toNanos(seconds), seconds);
                mostOnANode = sampler.mostOnANode();
            }
            final long checks = children.finish();
            final double serverPerNano = (redis.timeMs() - originMs) * 1e6 / (System.nanoTime() - origin);
            return judge(seed, seconds, checks, children, origin, serverPerNano);
        }
    }

    /** Stops, continues, kills and replaces children and stops Redis at random until {@code end}; samples. */
    private void chaos(final LocalRedis redis, final SoakChildren children, final LeaseSampler sampler,
        final long end, final long seconds) throws Exception
    {
        long redisUntil = 0; // while Redis is stopped: when to continue it
        long redisStopped = 0;
        long sampled = 0;
        while (System.nanoTime() - end < 0)
        {
            final long now = System.nanoTime();
            children.tend(now);
            if (redisUntil != 0 && now - redisUntil >= 0)
            {
                redisStops.add(new long[] {redisStopped, System.nanoTime()});
                redis.resume();
                redisUntil = 0;
            }
            if (now - sampled > SAMPLE_NANOS)
            {
                samples.add(sampler.sample(redisUntil == 0 ? redis.commands() : null));
                sampled = now;
            }
            final int choice = random.nextInt(1_000);
            final int victim = children.pick(random);
            if (choice < 150)
            {
                children.stop(victim, now + TimeUnit.MILLISECONDS.toNanos(random.nextInt(8) == 0 ?
                    3_200 + random.nextInt(1_500) : 10 + random.nextInt(500)));
            }
            else if (choice < 153)
            {
                if (redisUntil == 0 && stopRedis)
                {
                    redis.pause();
                    redisStopped = System.nanoTime();
                    redisUntil = now + TimeUnit.MILLISECONDS.toNanos(random.nextInt(4) == 0 ?
                        1_200 + random.nextInt(3_800) : 50 + random.nextInt(900));
                }
            }
            else if (choice < 155 || children.kills() == 0 && end - now < TimeUnit.SECONDS.toNanos(seconds) / 2)
            {
                children.killAndReplace(victim); // at least once, by half time
            }
            else if (choice < 156)
            {
                children.retire(children.group(victim)); // the node's every JVM: its last close gives back
            }
            // the scenario's pace: an operator's and a scheduler's events, tens of milliseconds apart
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5 + random.nextInt(25)));
        }
        if (redisUntil != 0)
        {
            redisStops.add(new long[] {redisStopped, System.nanoTime()});
            redis.resume();
        }
    }

    private Report judge(final long seed, final long seconds, final long checks, final SoakChildren children,
        final long origin, final double serverPerNano) throws Exception
    {
        final List<List<SoakCall>> calls = new ArrayList<>();
        for (int s = 0; s < SERIES.length; s++)
        {
            calls.add(new ArrayList<>());
        }
        final long inFlight = children.calls(calls);
        final StringBuilder summary = new StringBuilder(String.format(
            "CLUSTER-SOAK seed=%d seconds=%d nodes=%d jvms=%d threads=%d checks=%d pauses=%d kills=%d " +
                "retired=%d redisStops=%d inFlightAtKill=%d serverPerNano=%.6f (checks: of the children that ran to " +
                "the end)",
            seed, seconds, NODES, NODES * JVMS_PER_NODE, THREADS, checks, children.pauses(), children.kills(),
            children.retirements(), redisStops.size(), inFlight, serverPerNano));
        final List<String> exceeded = new ArrayList<>();
        for (int s = 0; s < SERIES.length; s++)
        {
            final long limit = CLUSTER[s][0];
            final long lease = Math.max(MAX_COST, CLUSTER[s][2] != 0 ? CLUSTER[s][2] : Math.max(1, limit / 10));
            // NOTES, "Lease size": at most three leases and a quarter per node for a moment, half a lease while
            // drained; and a cost's tokens a spend may carry
            final long unspent = NODES * (13 * lease / 4 + MAX_COST) + lease / 2;
            final ClusterBound.Verdict verdict = ClusterBound.judge(limit, CLUSTER[s][1], unspent, origin,
                serverPerNano, redisStops, calls.get(s));
            summary.append(String.format("%n  %s %s (%d per %d ms): admitted=%d (%.1f%% of the exact bound at " +
                    "the end) minSlack=%.1f endSlack=%.1f; intervals=%d unspent allowance=%d minSlack=%.1f", ACTIONS[s],
                SERIES[s], limit, CLUSTER[s][1], verdict.admitted(), 100.0 * verdict.admitted() /
                (verdict.admitted() + verdict.endSlack()),
                verdict.minSlack(), verdict.endSlack(), verdict.interval().intervals(), unspent,
                verdict.interval().minSlack()));
            final ClusterBound.Held held = ClusterBound.held(limit, CLUSTER[s][1], serverPerNano, samples, s,
                calls.get(s));
            final int series = s;
            final long mostHeld = samples.stream().mapToLong(sample -> sample.balances()[series]).max().orElse(0);
            // what no sample sees: a grant committed and the next applied while it reads (a lease a node), and a
            // spend's tokens between two balance words (a chunk, at most an eighth of a lease, and a cost a thread)
            final long unseen = NODES * lease + NODES * JVMS_PER_NODE * THREADS * (lease / 8 + MAX_COST);
            summary.append(String.format("; %d samples of the balances, at most %d held (%d on one node), at most " +
                "%.1f unseen (allowance %d): %s", samples.size(), mostHeld, mostOnANode[s], held.unseen(), unseen,
                held.where()));
            if (held.unseen() > unseen)
            {
                exceeded.add(ACTIONS[s] + " " + SERIES[s] + " over what the samples saw: " + held.where());
            }
            if (verdict.exceeded())
            {
                exceeded.add(ACTIONS[s] + " " + SERIES[s] + " over the exact bound: " + verdict.worst());
            }
            if (verdict.interval().exceeded())
            {
                exceeded.add(ACTIONS[s] + " " + SERIES[s] + " over the interval bound: " + verdict.interval().worst());
            }
        }
        return new Report(summary.toString(), exceeded, children.errors());
    }
}
