package dev.floodgate.testkit;

import dev.floodgate.Charge;
import dev.floodgate.Floodgate;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A checker JVM of one node of {@link ClusterSoak}: once the go file exists, its threads hammer the soak's cluster
 * quotas ({@link ClusterSoak#SERIES}) through both doors ({@code checkLimit} and {@code checkLimitInCaller}, costs 1
 * to {@link ClusterSoak#MAX_COST}) and two-quota {@code charge}s of either door until the stop file appears; the
 * quiet series ({@link ClusterSoak#quiet}) it leaves idle for a third of every period, so their nodes give
 * their leases back. Its calls go to a {@link SoakLog}; it ends
 * with {@code RESULT ops=N admitted=A errors=E maxMs=M}.
 *
 * <pre>args: file redisUri admissionsFile inflightFile stopFile goFile seed threads</pre>
 */
public final class ClusterSoakChild
{
    private ClusterSoakChild()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final int threads = Integer.parseInt(args[7]);
        final SoakLog log = new SoakLog(Path.of(args[2]), Path.of(args[3]), threads);
        final Path stop = Path.of(args[4]);
        final Path go = Path.of(args[5]);
        final long seed = Long.parseLong(args[6]);
        final AtomicLong ops = new AtomicLong();
        final AtomicLong admitted = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong maxNanos = new AtomicLong();
        try (Floodgate gate = Floodgate.open(ClusterSoak.config(Path.of(args[0]), args[1])))
        {
            warmUp(gate);
            System.out.println("READY " + ProcessHandle.current().pid());
            System.out.flush();
            while (!Files.exists(go))
            {
                Thread.sleep(1);
            }
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                final int thread = t;
                final Random random = new Random(seed * 31 + t);
                workers.add(new Thread(() ->
                {
                    for (long seq = 1; (seq & 63) != 0 || !Files.exists(stop); seq++)
                    {
                        final int a = pick(random);
                        final int b = pick(random);
                        final int op = random.nextInt(10);
                        final long costA = random.nextBoolean() ? 1 : 1 + random.nextInt(ClusterSoak.MAX_COST);
                        final boolean twoQuotas = op >= 8 && b != a;
                        final long costB = twoQuotas ? 1 + random.nextInt(ClusterSoak.MAX_COST) : 0;
                        final long start = System.nanoTime();
                        log.begin(thread, seq, start, a, costA, twoQuotas ? b : -1, costB);
                        try
                        {
                            final long result = twoQuotas ?
                                gate.charge(List.of(charge(random, a, costA), charge(random, b, costB))) :
                                check(gate, op < 4, a, costA);
                            final long end = System.nanoTime();
                            ops.incrementAndGet();
                            maxNanos.accumulateAndGet(end - start, Math::max);
                            if (result == Floodgate.ADMITTED)
                            {
                                admitted.incrementAndGet();
                                log.admitted(thread, seq, a, costA, twoQuotas ? b : -1, costB, start, end);
                            }
                            else
                            {
                                LockSupport.parkNanos(20_000L); // a broker's thread does other work between checks
                            }
                        }
                        catch (final RuntimeException ex)
                        {
                            errors.incrementAndGet();
                            ex.printStackTrace(System.out);
                        }
                        log.end(thread);
                        if ((seq & 7) == 0)
                        {
                            LockSupport.parkNanos(20_000L); // leaves the parent, the client and Redis some CPU
                        }
                    }
                }, "soak-" + t));
            }
            workers.forEach(Thread::start);
            for (final Thread worker : workers)
            {
                worker.join();
            }
        }
        System.out.println("RESULT ops=" + ops + " admitted=" + admitted + " errors=" + errors + " maxMs=" +
            TimeUnit.NANOSECONDS.toMillis(maxNanos.get()));
    }

    /**
     * Connects to Redis and leases once, for an identifier of this JVM's own, so the soak's first checks do not
     * wait on a cold client (the soak's origin is taken before them). A replacement may meet Redis stopped: it
     * goes on after 10 s.
     */
    private static void warmUp(final Floodgate gate) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        final String own = "warm-up-" + ProcessHandle.current().pid();
        while (gate.checkLimit(own, ClusterSoak.ACTIONS[0]) != Floodgate.ADMITTED && System.nanoTime() < deadline)
        {
            Thread.sleep(10);
        }
    }

    /** @return a series at random, the next one while it is quiet (some series never are). */
    private static int pick(final Random random)
    {
        int series = random.nextInt(ClusterSoak.SERIES.length);
        while (ClusterSoak.quiet(series))
        {
            series = (series + 1) % ClusterSoak.SERIES.length;
        }
        return series;
    }

    private static long check(final Floodgate gate, final boolean bucket, final int series, final long cost)
    {
        final String identifier = ClusterSoak.SERIES[series];
        if (cost == 1)
        {
            return bucket ? gate.checkLimit(identifier, ClusterSoak.ACTIONS[series]) :
                gate.checkLimitInCaller(identifier, ClusterSoak.ACTIONS[series]);
        }
        return bucket ? gate.checkLimit(identifier, ClusterSoak.ACTIONS[series], cost) :
            gate.checkLimitInCaller(identifier, ClusterSoak.ACTIONS[series], cost);
    }

    private static Charge charge(final Random random, final int series, final long cost)
    {
        return random.nextBoolean() ? Charge.bucket(ClusterSoak.SERIES[series], ClusterSoak.ACTIONS[series], cost) :
            Charge.window(ClusterSoak.SERIES[series], ClusterSoak.ACTIONS[series], cost);
    }
}
