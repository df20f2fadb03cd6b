package dev.floodgate.cluster;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link SilenceWatchdog}'s rule on a clock the test sets: no thread, no wait. */
class SilenceWatchdogTest
{
    private static final long S = 1_000_000_000L;
    private static final long T0 = 1_000 * S; // an arbitrary nanoTime origin

    @Test
    void threeTimeoutsAndThreeSecondsWithoutAReadPresumeTheConnectionDead()
    {
        final SilenceWatchdog watchdog = new SilenceWatchdog();
        watchdog.read(T0);
        assertFalse(watchdog.ended(true, T0 + S));
        assertFalse(watchdog.ended(true, T0 + 2 * S));
        assertFalse(watchdog.ended(true, T0 + 3 * S), "three timeouts, but 2 s since the first");
        assertTrue(watchdog.ended(true, T0 + 4 * S), "3 s since the streak's first timeout");
        assertFalse(watchdog.ended(true, T0 + 5 * S), "the streak starts afresh once it fired");
    }

    @Test
    void aLateReplyEndsTheStreak()
    {
        final SilenceWatchdog watchdog = new SilenceWatchdog();
        for (long t = 1; t <= 20; t++)
        {
            assertFalse(watchdog.ended(true, T0 + t * S), "timeout at " + t + " s");
            watchdog.read(T0 + t * S + S / 2); // each reply 1.5 s after its request, 0.5 s after its timeout
        }
    }

    @Test
    void timeoutsAfterAnIdleHourAreNotSilenceByThemselves()
    {
        final SilenceWatchdog watchdog = new SilenceWatchdog();
        watchdog.read(T0);
        final long later = T0 + 3_600 * S;
        assertFalse(watchdog.ended(true, later));
        assertFalse(watchdog.ended(true, later + 1));
        assertFalse(watchdog.ended(true, later + 2), "three at once are not 3 s of silence");
    }

    @Test
    void aRefusalMayFindTheSilenceLongEnoughButNeverCountsAsATimeout()
    {
        final SilenceWatchdog watchdog = new SilenceWatchdog();
        watchdog.read(T0);
        assertFalse(watchdog.ended(false, T0 + 10 * S), "refusals alone are no streak");
        assertFalse(watchdog.ended(true, T0 + 11 * S));
        assertFalse(watchdog.ended(true, T0 + 11 * S + 1));
        assertFalse(watchdog.ended(true, T0 + 11 * S + 2));
        assertFalse(watchdog.ended(false, T0 + 13 * S), "2 s");
        assertTrue(watchdog.ended(false, T0 + 14 * S), "the request queue is full: a refusal is the next event");
    }

    @Test
    void anyReadOrResetStartsAfresh()
    {
        final SilenceWatchdog watchdog = new SilenceWatchdog();
        watchdog.read(T0);
        watchdog.ended(true, T0 + S);
        watchdog.ended(true, T0 + 2 * S);
        watchdog.read(T0 + 2 * S + 1);
        assertFalse(watchdog.ended(true, T0 + 5 * S), "a read after two timeouts: this one is the first");
        watchdog.reset();
        assertFalse(watchdog.ended(true, T0 + 9 * S));
        assertFalse(watchdog.ended(true, T0 + 10 * S));
        assertTrue(watchdog.ended(true, T0 + 12 * S));
    }
}
