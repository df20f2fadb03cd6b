package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Review (review-bucket): a refused charge gives its bucket claim back with a clock read <em>before</em> it loads
 * the TAT word ({@code Charges.giveBackAll} passes {@code ticker.nanos()} to {@code BucketGiveBack.giveBack}), so a
 * thread descheduled between that read and the load judges a word other checks moved on with a stale "now". The
 * give-back then returns the part of the claim that refilled while it was descheduled, on top of what a check
 * claimed meanwhile: the bucket ends fuller than it would be had the charge never claimed (the bound
 * {@code BucketGiveBack}'s Javadoc promises), and a capacity of 10 admits 5 + 10 tokens within half a second.
 *
 * <p>Deterministic: the ticker hands the give-back's read the time it had, then moves the clock 500 ms and runs a
 * check of 5 on another thread before the read returns (a thread descheduled after its clock read).
 */
@Timeout(60)
class ChargeGiveBackClockTest
{
    private static final long MS = 1_000_000L;
    private static final long START_MS = 7_200_000;

    @TempDir
    Path dir;

    @Test
    void shouldNotGiveBackWhatRefilledWhileTheGiveBackWasDescheduledAfterItsClockRead()
    {
        final ManualTicker time = new ManualTicker(START_MS * MS);
        final HookedTicker ticker = new HookedTicker(time);
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("g.map")).capacity(1_000)
            .ticker(ticker).limit(Action.PUBLISH, 10, 1_000).limit(Action.SUBSCRIBE, 1, 60_000).build()))
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("p", Action.SUBSCRIBE)); // the window: exhausted
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("p", Action.PUBLISH)); // warm the bucket's slot
            time.advanceMs(1_000); // full again

            final AtomicLong between = new AtomicLong();
            ticker.onNextReadFrom("giveBack", () ->
            {
                time.advanceMs(500); // half the charge's claim refills while the give-back is descheduled
                between.set(HookedTicker.onOtherThread(() -> gate.checkLimit("p", Action.PUBLISH, 5)));
            });
            final long charge = gate.charge(List.of(Charge.bucket("p", Action.PUBLISH, 10),
                Charge.window("p", Action.SUBSCRIBE, 1)));
            assertFalse(ticker.armed(), "the action ran inside the give-back's clock read");
            assertNotEquals(Floodgate.ADMITTED, charge, "the window quota refuses the whole");
            assertEquals(Floodgate.ADMITTED, between.get(), "5 of the charge's 10 had refilled");

            // Had the refused charge never claimed, the bucket would hold 10 - 5 = 5 now
            final Probe left = gate.probe("p", Action.PUBLISH);
            assertNotEquals(Floodgate.ADMITTED, gate.checkLimit("p", Action.PUBLISH, 10),
                "a capacity of 10 admitted 5 + 10 tokens within 500 ms (tokens left after the charge: " + left + ")");
            assertEquals(5, left.remaining(), "the tokens left after a refused charge");
        }
    }
}
