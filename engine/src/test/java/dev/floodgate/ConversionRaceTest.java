package dev.floodgate;

import dev.floodgate.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bucket conversions racing checks: threads claim from one bucket while the limit is raised step by step in
 * a frozen instant, so each publish converts the TAT word under checks that still hold the old units. Every
 * token spent is kept across each conversion, so the total admitted is never above the final limit, and
 * afterwards exactly the rest is available.
 */
@Timeout(120)
class ConversionRaceTest
{
    @TempDir
    Path dir;

    @Test
    void shouldKeepEveryTokenSpentAcrossConversionsRacingChecks() throws Exception
    {
        final ManualTicker ticker = new ManualTicker(7_200_000_000_000L);
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("c.map")).capacity(1_000)
            .ticker(ticker).limit(Action.PUBLISH, 100, 60_000).build();
        final AtomicLong admitted = new AtomicLong();
        final AtomicBoolean stop = new AtomicBoolean();
        final List<Throwable> failures = new CopyOnWriteArrayList<>();
        try (Floodgate gate = Floodgate.open(config))
        {
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < 3; t++)
            {
                workers.add(new Thread(() ->
                {
                    try
                    {
                        while (!stop.get())
                        {
                            admitted.addAndGet(gate.checkLimit("hot", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0);
                        }
                    }
                    catch (final Throwable ex)
                    {
                        failures.add(ex);
                    }
                }));
            }
            workers.forEach(Thread::start);
            try
            {
                for (long limit = 200; limit <= 2_000; limit += 100)
                {
                    final long before = limit - 100;
                    // publish while the bucket is half spent and checks are racing
                    Await.until("admitted " + before / 2 + " of " + before, 60,
                        () -> admitted.get() >= before / 2 || !failures.isEmpty());
                    gate.reconfigure(config.toBuilder().limit(Action.PUBLISH, limit, 60_000).build());
                }
            }
            finally
            {
                stop.set(true); // on every path: the workers end
            }
            for (final Thread worker : workers)
            {
                worker.join();
            }
            assertEquals(List.of(), failures);
            assertTrue(admitted.get() <= 2_000, "admitted " + admitted.get());
            long rest = 0;
            while (gate.checkLimit("hot", Action.PUBLISH) == Floodgate.ADMITTED)
            {
                rest++;
            }
            assertEquals(2_000, admitted.get() + rest, "admitted " + admitted.get() + " then " + rest);
        }
    }
}
