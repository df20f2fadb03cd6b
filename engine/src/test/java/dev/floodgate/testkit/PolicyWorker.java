package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM opened with its own PUBLISH limit (a week's window): prints {@code READY limit=L} with the limit
 * of the file's policy it adopted or published, waits for the go file, runs its threads' checks on one key and
 * prints {@code RESULT admitted=N refused=M limit=L} with the policy's limit it then enforces.
 *
 * <pre>
 * args: file door(bucket|window) configuredLimit threads checksPerThread goFile
 * </pre>
 */
public final class PolicyWorker
{
    private PolicyWorker()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[0]);
        final boolean bucket = args[1].equals("bucket");
        final long limit = Long.parseLong(args[2]);
        final int threads = Integer.parseInt(args[3]);
        final long checks = Long.parseLong(args[4]);
        final Path go = Path.of(args[5]);
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(10_000)
            .limit(Action.PUBLISH, limit, FloodgateConfig.MAX_WINDOW_MS)
            .cleanupIntervalMs(FloodgateConfig.MAX_CLEANUP_INTERVAL_MS).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            System.out.println("READY limit=" + gate.policy().rule(Action.PUBLISH).limit());
            System.out.flush();
            while (!Files.exists(go))
            {
                LockSupport.parkNanos(1_000_000L); // polling the go file is the release signal itself
            }
            final AtomicLong admitted = new AtomicLong();
            final AtomicLong refused = new AtomicLong();
            final List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++)
            {
                workers.add(new Thread(() ->
                {
                    for (long i = 0; i < checks; i++)
                    {
                        final long result = bucket ? gate.checkLimit("hot", Action.PUBLISH) :
                            gate.checkLimitInCaller("hot", Action.PUBLISH);
                        (result == Floodgate.ADMITTED ? admitted : refused).incrementAndGet();
                    }
                }));
            }
            workers.forEach(Thread::start);
            for (final Thread worker : workers)
            {
                worker.join();
            }
            System.out.println("RESULT admitted=" + admitted.get() + " refused=" + refused.get() + " limit=" +
                gate.policy().rule(Action.PUBLISH).limit());
        }
    }
}
