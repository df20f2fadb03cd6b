package dev.floodgate;

import dev.floodgate.testkit.OpenGates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A window whose number's low 22 bits are 0 (every 2^22-th window: 70 min of 1 ms windows, 48.5 days of 1 s
 * windows) writes tag 0 into its shard words; a give-back of the whole count then leaves the word all-zero, which
 * tryClaim read as "unused, as created": a check whose clock still read the window before (another JVM's coarse
 * clock one tick behind) restarted that older, spent window from zero. Found by review; fails before the fix.
 */
@Timeout(60)
class WindowTagZeroTest
{
    private static final long MS = 1_000_000L;
    private static final long WINDOW_MS = 1_000;
    private static final long N = 1L << 22; // tag 0; the first policy numbers 1 s windows floor(ms / 1000)

    @TempDir
    Path dir;

    private final ManualTicker aTime = new ManualTicker((N * WINDOW_MS - 500) * MS);
    private final ManualTicker bTime = new ManualTicker((N * WINDOW_MS - 500) * MS);

    @RegisterExtension
    final OpenGates gates = new OpenGates();

    private Floodgate open(final ManualTicker ticker)
    {
        return gates.open(FloodgateConfig.builder().file(dir.resolve("tag.map")).capacity(1_000)
            .ticker(ticker).reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS)
            .limit(Action.PUBLISH, 1, WINDOW_MS).limit(Action.SUBSCRIBE, 1, WINDOW_MS).build());
    }

    @Test
    void shouldNotRestartASpentWindowFromAnAllZeroWordLeftByAGiveBackInATagZeroWindow()
    {
        final Floodgate a = open(aTime);
        final Floodgate b = open(bTime);
        assertEquals(Floodgate.ADMITTED, b.checkLimitInCaller("p", Action.PUBLISH), "window N-1: 1 of 1");
        aTime.set(N * WINDOW_MS * MS); // A is in window N (tag 0)
        assertEquals(Floodgate.ADMITTED, a.checkLimitInCaller("p", Action.SUBSCRIBE)); // SUBSCRIBE spent in N
        assertNotEquals(Floodgate.ADMITTED, a.charge(List.of(Charge.window("p", Action.PUBLISH, 1),
            Charge.window("p", Action.SUBSCRIBE, 1))), "refused by SUBSCRIBE: PUBLISH's claim in N is given back");
        bTime.set((N * WINDOW_MS - 1) * MS); // B's clock one tick behind A's: still window N-1
        final int lagging = b.checkLimitInCaller("p", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
        int inN = 0;
        for (int i = 0; i < 3; i++)
        {
            inN += a.checkLimitInCaller("p", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
        }
        // either B is refused (N-1 is spent) or it counts in window N, which the shard already holds
        assertEquals(1, lagging + inN, "B admitted " + lagging + " in spent window N-1, then N admitted " + inN);
    }
}
