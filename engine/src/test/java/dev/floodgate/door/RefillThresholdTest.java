package dev.floodgate.door;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@link LeaseFetcher#threshold}: twice what a refill's flight spent, between half a lease and a whole one. */
class RefillThresholdTest
{
    @Test
    void shouldFollowWhatTheNodeSpentWhileTheRefillWasOnTheWire()
    {
        assertEquals(500, LeaseFetcher.threshold(1_000, 499, 480), "spent little: half a lease, the old rule");
        assertEquals(700, LeaseFetcher.threshold(1_000, 499, 149), "spent 350: the next refill starts at 700");
        assertEquals(1_000, LeaseFetcher.threshold(1_000, 499, 0), "ran dry: at the first spend below a lease");
        assertEquals(1_000, LeaseFetcher.threshold(1_000, 999, 1), "spent over half a lease: a whole one");
        assertEquals(500, LeaseFetcher.threshold(1_000, 999, 999), "and back to half once the rate drops");
        assertEquals(1, LeaseFetcher.threshold(1, 1, 1), "a lease of one token");
    }
}
