package dev.floodgate.cluster;

import dev.floodgate.Action;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two clients (two nodes' connections), many threads each, one hot bucket refilling fast: whatever the interleaving,
 * the tokens granted never exceed what the bucket held at the start plus what it refilled over the server time the
 * run took, read from TIME before the first call and after the last.
 */
@Timeout(120)
class LeaseConcurrencyTest
{
    private static final int THREADS_PER_CLIENT = 4;
    private static final long RUN_MS = 1_500;

    @Test
    void grantsNeverExceedTheBucketWhateverTheInterleaving() throws Exception
    {
        final ClusterLimit limit = new ClusterLimit(50, 200);
        final LeaseKey key = LeaseKey.of(Action.PUBLISH, "hot");
        final Map<Lease.Outcome, AtomicLong> outcomes = new EnumMap<>(Lease.Outcome.class);
        for (final Lease.Outcome outcome : Lease.Outcome.values())
        {
            outcomes.put(outcome, new AtomicLong());
        }
        final AtomicLong granted = new AtomicLong();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        try (LocalRedis redis = LocalRedis.start();
             // a bound far above any pause of a loaded host: an unanswered lease may have been applied, and this
             // test judges the server's grants, so every call must come back with its answer
             RedisLeases nodeA = RedisLeases.open(redis.uri(), Duration.ofSeconds(5));
             RedisLeases nodeB = RedisLeases.open(redis.uri(), Duration.ofSeconds(5)))
        {
            assertTrue(nodeA.awaitConnected(Duration.ofSeconds(10)) && nodeB.awaitConnected(Duration.ofSeconds(10)));
            // node b's threads share one name and one counter: their requests race, so some arrive after a newer
            // seq and are stale; node a's threads each lease as a node of their own
            final AtomicLong sharedSeq = new AtomicLong();
            final CyclicBarrier start = new CyclicBarrier(2 * THREADS_PER_CLIENT + 1);
            final List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 2 * THREADS_PER_CLIENT; t++)
            {
                final boolean onA = t < THREADS_PER_CLIENT;
                final RedisLeases client = onA ? nodeA : nodeB;
                final String node = onA ? "a" + t : "b";
                final boolean async = t % 2 == 1;
                threads.add(new Thread(() ->
                {
                    try
                    {
                        long ownSeq = 0;
                        start.await();
                        final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MS);
                        while (System.nanoTime() - end < 0)
                        {
                            final long seq = onA ? ++ownSeq : sharedSeq.incrementAndGet();
                            final Lease lease = async ?
                                client.leaseAsync(key, limit, node, seq, 3).toCompletableFuture().join() :
                                client.lease(key, limit, node, seq, 3);
                            outcomes.get(lease.outcome()).incrementAndGet();
                            if (lease.outcome() == Lease.Outcome.APPLIED)
                            {
                                granted.addAndGet(lease.tokens());
                            }
                        }
                    }
                    catch (final Throwable ex)
                    {
                        failures.add(ex);
                    }
                }, "lessee-" + t));
            }
            threads.forEach(Thread::start);
            final long before = redis.timeMs();
            start.await();
            for (final Thread thread : threads)
            {
                thread.join(TimeUnit.SECONDS.toMillis(60));
                assertTrue(!thread.isAlive(), thread.getName() + " is stuck");
            }
            final long after = redis.timeMs();
            assertEquals(List.of(), failures);

            assertEquals(0, outcomes.get(Lease.Outcome.UNAVAILABLE).get(), "every call answered: " + outcomes);
            assertEquals(0, outcomes.get(Lease.Outcome.REPLAYED).get(), "no seq was sent twice: " + outcomes);
            final long elapsedMs = after - before;
            final long most = limit.limit() + elapsedMs * limit.limit() / limit.windowMs();
            assertTrue(granted.get() <= most, granted + " granted, but the bucket held at most " + most + " over "
                + elapsedMs + " ms of server time");
            assertTrue(granted.get() >= limit.limit() && granted.get() >= most / 2,
                "demand far above supply takes most of it: " + granted + " of at most " + most + "; " + outcomes);
            assertEquals(granted.get(), nodeA.counters().tokensLeased() + nodeB.counters().tokensLeased(),
                "the clients counted what their callers got");
            System.out.printf("granted %d of at most %d in %d ms of server time; %s%n", granted.get(), most,
                elapsedMs, outcomes);
        }
    }
}
