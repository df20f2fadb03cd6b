package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A cold check on a thread whose interrupt status is set, on an idle table that nobody else maps. Chronicle's
 * {@code UpdateLock.tryLock(time, unit)} throws InterruptedException at once when the flag is set; EntryLocks.lock
 * turned that into a TableBusyException, which SlotResolver counted as "degraded" (a live process held the segment)
 * and answered by the unreachable rule. EntryLocks.lock then restored the flag, so every first-seen key on that
 * thread was refused (or, under "admit", admitted with no claim in the table). Found by review; failed before. The
 * lock now sets the status aside and gives it back.
 */
@Timeout(60)
class InterruptedColdCheckTest
{
    @TempDir
    Path dir;

    @Test
    void shouldResolveANewKeyOnAThreadWhoseInterruptStatusIsSet()
    {
        final Path file = dir.resolve("interrupt.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            long result;
            Thread.currentThread().interrupt();
            try
            {
                result = gate.checkLimitInCaller("new-user", Action.PUBLISH);
            }
            finally
            {
                assertTrue(Thread.interrupted(), "the caller's interrupt status is left as it was");
            }
            final long degraded = gate.stats().degraded().get(Action.PUBLISH);
            assertEquals(Floodgate.ADMITTED, result,
                "an idle table refused a new key with the unreachable rule's retry-after because the thread was " +
                    "interrupted");
            assertEquals(0, degraded, "no live process held anything, yet the check was counted as unreachable");
        }
    }
}
