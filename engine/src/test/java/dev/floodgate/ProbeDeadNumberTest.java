package dev.floodgate;

import dev.floodgate.testkit.OpenGates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A probe tells the truth a check would meet. After a stale check leaves a shard word on a window number no regime
 * owns (PolicyRaceTest.shouldNotCountALateCheckInAWindowNumberNoRegimeOwns), a check whose clock is still in the
 * window in force is refused on that shard (ShardedWindow.tryClaim's fence); the probe read the word's count (0
 * after the give-back) as "nothing used" and reported tokens left. Found by review; fails before the fix.
 */
@Timeout(60)
class ProbeDeadNumberTest
{
    private static final long MS = 1_000_000L;
    private static final long START_MS = 3_600_000;

    @TempDir
    Path dir;

    private final ManualTicker time = new ManualTicker(START_MS * MS);
    private final HookedTicker ticker = new HookedTicker(time);
    private final ManualTicker laggingTime = new ManualTicker((START_MS + 990) * MS);

    @RegisterExtension
    final OpenGates gates = new OpenGates();

    private FloodgateConfig policy(final Ticker clock, final long limit, final long windowMs)
    {
        return FloodgateConfig.builder().file(dir.resolve("dead.map")).capacity(1_000).ticker(clock)
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).limit(Action.PUBLISH, limit, windowMs).build();
    }

    @Test
    void shouldProbeNoTokensWhereACheckIsRefusedOnADeadWindowNumber()
    {
        final Floodgate gate = gates.open(policy(ticker, 10, 1_000));
        time.set((START_MS + 900) * MS);
        gate.reconfigure(policy(ticker, 10, 500)); // pending from START + 1000
        int admitted = 0;
        for (int i = 0; i < 20; i++)
        {
            admitted += gate.checkLimitInCaller("u", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
        }
        assertEquals(10, admitted, "the window in force is spent");
        ticker.onNextRead(() ->
        {
            time.set((START_MS + 950) * MS);
            gate.reconfigure(policy(ticker, 2, 1_000)); // replaces the pending regime
            time.set((START_MS + 1_010) * MS);
        });
        assertEquals(Floodgate.NEVER, gate.checkLimitInCaller("u", Action.PUBLISH, 5), "5 under the new limit of 2");
        // another JVM whose clock still reads START + 990, in the window in force (spent)
        final Floodgate lagging = gates.open(policy(laggingTime, 2, 1_000));
        final Probe probe = lagging.probeInCaller("u", Action.PUBLISH);
        final long check = lagging.checkLimitInCaller("u", Action.PUBLISH);
        assertEquals(check == Floodgate.ADMITTED, probe.remaining() >= 1,
            "probe " + probe + " but the check answered " + check);
    }
}
