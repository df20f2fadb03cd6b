package dev.floodgate.door;

import dev.floodgate.HookedTicker;
import dev.floodgate.ManualTicker;
import dev.floodgate.testkit.Await;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The coarse clock's sleep, on a manual ticker: the thread stops ticking after its idle ticks with no read, runs its
 * periodic task asleep when it is due, and the first read after the sleep reads the ticker itself and wakes it. The
 * clock thread publishes every millisecond of real time whatever the manual ticker says, so the tests count its ticks
 * (a hook after each tick's publish and sleep decision) and wait for counts, never for time.
 */
@Timeout(60)
class CoarseClockSleepTest
{
    private static final long T0 = 1_000_000_000_000L;
    private static final long SECOND = 1_000_000_000L;
    /** The periodic task's interval, on the manual ticker; asleep, the thread parks this long in real time. */
    private static final long PERIOD = 10_000_000L;
    private static final int IDLE = 5;

    private final AtomicLong ticks = new AtomicLong();
    private final AtomicLong beats = new AtomicLong();
    private CoarseClock clock;

    @AfterEach
    void close()
    {
        if (clock != null)
        {
            clock.close();
        }
    }

    private CoarseClock clock(final dev.floodgate.Ticker ticker, final Runnable onTick, final String name)
    {
        clock = new CoarseClock(ticker, true, IDLE, () ->
        {
            ticks.incrementAndGet();
            onTick.run();
        }, beats::incrementAndGet, PERIOD, name);
        return clock;
    }

    @Test
    void shouldSleepAfterItsIdleTicksAndReadTheTickerOnTheFirstReadAfter()
    {
        final ManualTicker time = new ManualTicker(T0);
        final CoarseClock clock = clock(time, () -> { }, "sleep-clock");
        Await.until("the idle clock's ticks", 10, () -> ticks.get() == IDLE);
        assertTrue(clock.asleep(), "no read for " + IDLE + " ticks, yet the thread did not fall asleep");

        time.set(T0 + 7 * SECOND);
        assertEquals(T0 + 7 * SECOND, clock.nanos(), "the first read after the sleep trailed the ticker");
        // the woken thread counts its idle ticks afresh and sleeps again: the wake's tick, then IDLE with no read (a
        // read here would count as one)
        Await.until("the second sleep", 10, () -> ticks.get() == 2L * IDLE + 1);
        assertTrue(clock.asleep());
        time.set(T0 + 8 * SECOND);
        assertEquals(T0 + 8 * SECOND, clock.nanos(), "the first read after the second sleep trailed the ticker");
    }

    @Test
    void shouldRunItsPeriodicTaskAsleepWithoutTicking()
    {
        final ManualTicker time = new ManualTicker(T0);
        final CoarseClock clock = clock(time, () -> { }, "beat-clock");
        Await.until("the idle clock's ticks", 10, () -> ticks.get() == IDLE);
        assertTrue(clock.asleep());
        final long asleepBeats = beats.get();
        assertEquals(1, asleepBeats, "the periodic task runs at the first tick and is not due again yet");

        for (int i = 1; i <= 3; i++)
        {
            time.advanceNanos(PERIOD);
            final long due = asleepBeats + i;
            Await.until("the periodic task of a sleeping clock", 10, () -> beats.get() == due);
        }
        assertEquals(IDLE, ticks.get(), "the sleeping thread ticked while it ran its periodic task");
        assertTrue(clock.asleep(), "the periodic task woke the clock");
    }

    @Test
    void shouldStayAwakeWhileReadBetweenTicks()
    {
        final ManualTicker time = new ManualTicker(T0);
        // counted on the clock thread, which goes on ticking while the test asserts: the test compares nothing the
        // thread is still writing (comparing the tick count with a sum of readings raced: 100 ticks against 99
        // readings when the assert fell between a tick's count and its read)
        final AtomicLong readings = new AtomicLong();
        final AtomicLong strayReading = new AtomicLong(T0);
        final CoarseClock clock = clock(time, () ->
        {
            final CoarseClock read = this.clock; // null when the first tick runs before the constructor returns
            if (read != null)
            {
                final long now = read.nanos();
                if (now != T0)
                {
                    strayReading.compareAndSet(T0, now);
                }
                readings.incrementAndGet();
            }
        }, "read-clock");
        Await.until("ticks, each followed by a read", 10, () -> readings.get() >= 20L * IDLE);
        assertFalse(clock.asleep(), "a clock read after every tick fell asleep");
        assertEquals(T0, strayReading.get(), "a reading of a clock whose ticker stood still");
    }

    /**
     * The race the publish's maximum is for: the thread reads the ticker, then a reader finds it asleep, reads the
     * ticker later, publishes that and wakes it, and then the thread publishes its own, older reading. A plain
     * store put the older time back: the next read went backwards.
     */
    @Test
    void shouldNotLetTheThreadsOlderReadingLowerAWakingReadersPublish()
    {
        final ManualTicker time = new ManualTicker(T0);
        final HookedTicker ticker = new HookedTicker(time);
        final AtomicBoolean recordNext = new AtomicBoolean();
        final AtomicLong afterRace = new AtomicLong();
        final CoarseClock clock = clock(ticker, () ->
        {
            if (recordNext.getAndSet(false))
            {
                afterRace.set(this.clock.nanos());
            }
        }, "race-clock");
        Await.until("the idle clock's ticks", 10, () -> ticks.get() == IDLE);
        final Thread thread = Thread.getAllStackTraces().keySet().stream()
            .filter(t -> t.getName().equals("race-clock")).findFirst().orElseThrow();

        final AtomicLong woken = new AtomicLong();
        ticker.onNextRead(thread, () ->
        {
            final long older = time.nanos(); // the asleep thread's reading, made before the reader's
            time.set(T0 + 3 * SECOND);
            woken.set(HookedTicker.onOtherThread(clock::nanos)); // finds it asleep: reads, publishes, wakes it
            recordNext.set(true);
            return older;
        });
        // the read recorded, not the flag's clearing: the hook clears it before its read, and an assert between the
        // two found nothing recorded
        Await.until("the read after the race", 10, () -> afterRace.get() != 0);
        assertEquals(T0 + 3 * SECOND, woken.get(), "the waking reader's reading");
        assertEquals(T0 + 3 * SECOND, afterRace.get(), "the read after the thread published its older reading went " +
            "back from the waking reader's");
    }
}
