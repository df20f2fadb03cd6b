package dev.floodgate;

import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.testkit.Await;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import static dev.floodgate.ClusterGiveBackTest.admit;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The Redis client's shutdown set aside an interrupt status present when it began, but one arriving during its wait
 * for Lettuce (up to 2 s) threw Lettuce's {@code RedisCommandInterruptedException} out of {@code close()}, before the
 * table's detach: the process slot stayed claimed and Lettuce's threads and timer ran on. A close must complete
 * whatever interrupts arrive (a pool's {@code shutdownNow} racing an application's close). Real redis-server; found by
 * review; fails before.
 */
@Timeout(120)
class InterruptedCloseTest
{
    /** An instance's own threads; the JVM's one {@code floodgate-unmapper} outlives it. */
    private static final Set<String> INSTANCE_THREADS = Set.of("floodgate-clock", "floodgate-janitor",
        "floodgate-redis-timer");

    @TempDir
    Path dir;

    @Test
    void shouldCompleteACloseInterruptedAgainAndAgainWhileItRuns() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start())
        {
            final Set<Thread> before = Set.copyOf(Thread.getAllStackTraces().keySet());
            final Path file = dir.resolve("node.map");
            final ManualTicker ticker = new ManualTicker(System.nanoTime());
            final Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).ticker(ticker)
                .limit(Action.PUBLISH, 1_000, 60_000).clusterRedisUri(redis.uri())
                .clusterLimit(Action.PUBLISH, 10, 60_000).clusterLease(Action.PUBLISH, 6)
                .clusterFallbackLocal(Action.PUBLISH, false).build());
            final AtomicReference<Throwable> thrown = new AtomicReference<>();
            try
            {
                admit(gate, ticker, "bob", 1); // connected, and a lease for the close to give back
                final Thread closer = new Thread(() ->
                {
                    try
                    {
                        gate.close();
                    }
                    catch (final Throwable ex)
                    {
                        thrown.set(ex);
                    }
                }, "closer");
                final Thread interrupter = new Thread(() ->
                {
                    while (closer.isAlive())
                    {
                        closer.interrupt();
                        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200)); // a rate, not a synchronisation
                    }
                }, "interrupter");
                closer.start();
                interrupter.start();
                closer.join(60_000);
                interrupter.join(10_000);
                assertFalse(closer.isAlive(), "close() did not return");
                assertNull(thrown.get(), "close() threw " + thrown.get());
            }
            finally
            {
                gate.close(); // a no-op when closed already
            }
            try (FloodgateReader reader = FloodgateReader.open(file))
            {
                assertEquals(0, reader.attachedProcesses(), "close() returned with this process's slot claimed");
            }
            // Lettuce's threads end once their executors have terminated, a moment after the close waited for that
            try
            {
                Await.until("no Lettuce thread or thread of the closed instance alive", 10,
                    () -> ours(before).isEmpty());
            }
            catch (final AssertionError ex)
            {
                throw new AssertionError(ex.getMessage() + ": " + ours(before), ex);
            }
        }
    }

    private static List<String> ours(final Set<Thread> before)
    {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.isAlive() && !before.contains(t) &&
                (t.getName().startsWith("lettuce-") || INSTANCE_THREADS.contains(t.getName())))
            .map(Thread::getName).sorted().collect(Collectors.toList());
    }
}
