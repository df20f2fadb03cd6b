package dev.floodgate.door;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Readings never go backwards across the clock's sleeps and wakes: several readers, each pausing now and then so the
 * clock (one idle tick before it sleeps) falls asleep and is woken over and over, race the thread's publishes and
 * each other's. The ticker moves on at every read, and now and then holds its caller a while after reading, so any
 * reading another one lowered shows: a reading below one this reader made before, or below one any reader made before
 * this read began.
 */
@Timeout(120)
class CoarseClockRaceTest
{
    private static final int READERS = 4;
    private static final long RUN_NANOS = 3_000_000_000L;

    @Test
    void shouldNeverReadBackwardsAcrossSleepsAndWakes() throws Exception
    {
        final AtomicLong ticker = new AtomicLong();
        final AtomicLong sleeps = new AtomicLong();
        final AtomicReference<CoarseClock> holder = new AtomicReference<>();
        // a reading held a while before its caller uses it: a reader or the thread descheduled between its ticker
        // read and its publish, the window of the race
        final dev.floodgate.Ticker slowTicker = () ->
        {
            final long reading = ticker.incrementAndGet();
            if (ThreadLocalRandom.current().nextInt(4) == 0)
            {
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(200_000L));
            }
            return reading;
        };
        final CoarseClock clock = new CoarseClock(slowTicker, true, 1, () ->
        {
            if (holder.get().asleep())
            {
                sleeps.incrementAndGet();
            }
        }, () -> { }, 200_000L, "race-stress-clock");
        holder.set(clock);
        final AtomicLong newest = new AtomicLong(); // the largest reading any reader has returned
        final AtomicLong reads = new AtomicLong();
        final AtomicReference<String> backwards = new AtomicReference<>();
        final long end = System.nanoTime() + RUN_NANOS;
        final List<Thread> readers = new ArrayList<>();
        try
        {
            for (int r = 0; r < READERS; r++)
            {
                final Thread reader = new Thread(() ->
                {
                    final ThreadLocalRandom random = ThreadLocalRandom.current();
                    long own = Long.MIN_VALUE;
                    long n = 0;
                    while (backwards.get() == null && System.nanoTime() - end < 0)
                    {
                        final long before = newest.get();
                        final long reading = clock.nanos();
                        if (reading < own || reading < before)
                        {
                            backwards.compareAndSet(null, "read " + reading + " after this reader's " + own +
                                " and another's " + before);
                        }
                        own = reading;
                        newest.accumulateAndGet(reading, Math::max);
                        n++;
                        if (random.nextInt(64) == 0)
                        {
                            LockSupport.parkNanos(random.nextLong(3_000_000L)); // pacing: lets the clock sleep
                        }
                    }
                    reads.addAndGet(n);
                }, "clock-reader-" + r);
                readers.add(reader);
                reader.start();
            }
            for (final Thread reader : readers)
            {
                reader.join();
            }
        }
        finally
        {
            clock.close();
        }
        assertNull(backwards.get(), "a reading went backwards");
        assertTrue(sleeps.get() >= 20, "the clock slept only " + sleeps.get() + " times in " + reads.get() +
            " reads: the race with its wakes was hardly run");
        System.out.println("CoarseClockRaceTest: " + reads.get() + " reads, " + sleeps.get() + " sleeps");
    }
}
