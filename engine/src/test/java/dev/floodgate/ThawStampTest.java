package dev.floodgate;

import dev.floodgate.store.FileHeader;
import dev.floodgate.store.ProcessRegistry;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.Await;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A janitor pass beats the process's heartbeat itself, and the heartbeat stamped "resumed" with the time the pass
 * had read first. A process frozen (SIGSTOP, a long safepoint) between that read and the beat thawed with its
 * janitor thread stamping the time read <em>before</em> the freeze, taking the real-clock gap with it: the clock
 * thread's beat right after saw no gap and stamped nothing, and the node's janitors reclaimed at once under the
 * thawed process's checks (NOTES, Reclamation 5). Found by review; fails before. The freeze is a ticker read held
 * on the pass's thread; the 1.1 s of real time it lasts is the stall itself, not a wait for another thread.
 *
 * <p>Real time, because the stall threshold ({@code ProcessRegistry.heartbeat}: a gap of min(1 s, grace / 2)
 * between beats) reads the real clock on purpose, not the instance's ticker: it asks whether this process was
 * stopped (SIGSTOP, a debugger, a long safepoint), which the real clock sees and an injected ticker need not, and a
 * ticker's jump is time moved on while the process runs, no stall. Measured on the ticker (tried), this test passed
 * without the wait, but the tests that move their ticker past the grace period to see entries reaped
 * ({@code FloodgateTest}, {@code StaleBucketWriteAfterReapTest}) failed: each jump stamped a resume, which held
 * reclamation back for a grace period. Load only lengthens the freeze, which stays over the threshold. Without the
 * wait the fixed engine fails this test (tried: no resume stamped), so the real second is the stimulus, not slack;
 * replacing it would take a second, injectable real clock through {@code Floodgate.open} for this test alone.
 */
@Timeout(120)
class ThawStampTest
{
    private static final long T0 = 1_000_000_000_000L;
    private static final long GRACE_MS = 2_000;

    @TempDir
    Path dir;

    /** A manual clock whose reads on chosen threads wait ("frozen") until released, then return a given time. */
    static final class FreezingTicker implements Ticker
    {
        final ManualTicker time = new ManualTicker(T0);
        final Map<Thread, long[]> frozenReads = new ConcurrentHashMap<>();
        final Map<Thread, CountDownLatch> inside = new ConcurrentHashMap<>();
        final Map<Thread, CountDownLatch> thaw = new ConcurrentHashMap<>();

        void freezeNextRead(final Thread thread, final long returning)
        {
            inside.put(thread, new CountDownLatch(1));
            thaw.put(thread, new CountDownLatch(1));
            frozenReads.put(thread, new long[] {returning});
        }

        @Override
        public long nanos()
        {
            final long[] value = frozenReads.remove(Thread.currentThread());
            if (value != null)
            {
                inside.get(Thread.currentThread()).countDown();
                try
                {
                    thaw.get(Thread.currentThread()).await();
                }
                catch (final InterruptedException ex)
                {
                    Thread.currentThread().interrupt();
                }
                return value[0];
            }
            return time.nanos();
        }
    }

    @Test
    void shouldStampTheResumeWithTheThawTimeWhenTheJanitorBeatsFirst() throws Exception
    {
        final Path file = dir.resolve("t.map");
        final FreezingTicker ticker = new FreezingTicker();
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).ticker(ticker)
            .reclaimGraceMs(GRACE_MS).cleanupIntervalMs(3_600_000)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build());
            QuotaTable observer = QuotaTable.open(file, 1_000, 2, false, System.nanoTime()))
        {
            final Thread clock = Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().equals("floodgate-clock")).findFirst().orElseThrow();
            final Thread pass = new Thread(gate::cleanup, "janitor-pass"); // a pass; the janitor thread's is the same
            // the freeze: the janitor pass has read its `now` (T0), the clock thread waits at its next read
            ticker.freezeNextRead(pass, T0);
            ticker.freezeNextRead(clock, T0 + 10 * GRACE_MS * 1_000_000L);
            pass.start();
            ticker.inside.get(pass).await();
            ticker.inside.get(clock).await();
            ticker.time.set(T0 + 10 * GRACE_MS * 1_000_000L); // frozen for 10 grace periods
            final long frozenReal = System.nanoTime();
            while (System.nanoTime() - frozenReal < 1_100_000_000L) // over the 1 s threshold, on the real clock
            {
                Thread.sleep(50);
            }
            // thaw: the janitor pass runs first, then the clock thread beats
            ticker.thaw.get(pass).countDown();
            pass.join();
            ticker.thaw.get(clock).countDown();
            final int slot = 0; // the first process on a new lock file
            final int base = FileHeader.processOffset(slot);
            Await.until("the clock thread's beat", 60, () ->
                observer.header().buffer().getLongVolatile(base + FileHeader.PROCESS_HEARTBEAT_NANOS) ==
                    ticker.time.nanos());
            final ProcessRegistry registry = new ProcessRegistry(observer.header(), observer.locks(), 1_000_000_000L);
            final long resumed = observer.header().buffer().getLongVolatile(base + FileHeader.PROCESS_RESUMED_NANOS);
            assertNotEquals(0, registry.reclaimBlocker(ticker.time.nanos(), GRACE_MS * 1_000_000L),
                "a process that thawed just now does not hold reclamation back: its resume stamp is " +
                    (ticker.time.nanos() - resumed) / 1_000_000 + " ms old");
        }
    }
}
