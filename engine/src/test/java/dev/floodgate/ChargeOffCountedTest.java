package dev.floodgate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Review (rv-cache): a charge whose policy changes under each of its {@code Doors.ATTEMPTS} attempts falls back to
 * {@code Outcomes.unavailable} for <em>every</em> quota, including a quota of an action switched off, which the
 * charge's contract (and the one-action doors) leave admitted and uncounted. So a switched-off action's check
 * counters move (here SUBSCRIBE, off the whole time, gains a counted check). Driven deterministically: a hooked
 * ticker publishes a new policy (another action's limit) inside every clock read of the charging thread.
 */
@Timeout(60)
class ChargeOffCountedTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    private final ManualTicker time = new ManualTicker(3_600_000 * MS);
    private final HookedTicker ticker = new HookedTicker(time);
    private Floodgate gate;

    private FloodgateConfig.Builder config(final long api)
    {
        return FloodgateConfig.builder().file(dir.resolve("quota.map")).capacity(1_000).ticker(ticker)
            .limit(Action.AUTH, 10, 60_000).limit(Action.DASHBOARD_API, api, 60_000);
    }

    @AfterEach
    void close()
    {
        if (gate != null)
        {
            gate.close();
        }
    }

    @Test
    void shouldNotCountAQuotaOfASwitchedOffActionWhenEveryAttemptOfTheChargeWentStale()
    {
        gate = Floodgate.open(config(300).build());
        assertEquals(0, gate.policy().rule(Action.SUBSCRIBE).limit(), "SUBSCRIBE is off");
        final AtomicInteger publishes = new AtomicInteger();
        final Runnable publish = new Runnable()
        {
            @Override
            public void run()
            {
                gate.reconfigure(config(300 + publishes.incrementAndGet() % 2).build());
                if (publishes.get() < 64)
                {
                    ticker.onNextRead(this); // again at the charge's next clock read
                }
            }
        };
        ticker.onNextRead(publish);
        gate.charge(List.of(Charge.bucket("alice", Action.AUTH, 1), Charge.window("alice", Action.SUBSCRIBE, 1)));
        ticker.onNextRead(() -> { }); // disarm
        assertTrue(publishes.get() >= 4, "the policy changed under every attempt: " + publishes.get());
        final Stats.Checks subscribe = gate.checks().get(Action.SUBSCRIBE);
        assertEquals(0, subscribe.admitted() + subscribe.refused(),
            "a switched-off action is never counted, in a charge as in a check: " + subscribe);
    }
}
