package dev.floodgate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A {@link Quota} handle answers as the by-name methods do, shares their counts exactly, and stays correct
 * across what can happen to its entry: a reset, the janitor reaping it (and the memory going to other entries),
 * a policy change, a full table and close. An injected ticker drives time.
 */
class QuotaHandleTest
{
    private static final long MS = 1_000_000L;

    @TempDir
    Path dir;

    private final ManualTicker ticker = new ManualTicker(3_600_000 * MS);
    private Floodgate gate;

    private FloodgateConfig.Builder config()
    {
        return FloodgateConfig.builder().file(dir.resolve("quota.map")).capacity(1_000).ticker(ticker)
            .limit(Action.AUTH, 10, 60_000).limit(Action.PUBLISH, 5, 1_000)
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS);
    }

    @BeforeEach
    void open()
    {
        gate = Floodgate.open(config().build());
    }

    @AfterEach
    void close()
    {
        gate.close();
    }

    @Test
    void shouldShareOneQuotaExactlyWithTheByNameMethods()
    {
        final Quota alice = gate.quota("alice", Action.PUBLISH);
        assertEquals(Floodgate.ADMITTED, alice.checkLimitInCaller());
        assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("alice", Action.PUBLISH));
        assertEquals(Floodgate.ADMITTED, alice.checkLimitInCaller(2));
        assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller(new StringBuilder("alice"), Action.PUBLISH));
        assertEquals(1_000, alice.checkLimitInCaller(), "the sixth of five is refused, whichever way it comes");
        assertEquals(1_000, gate.checkLimitInCaller("alice", Action.PUBLISH));
        assertEquals(Floodgate.NEVER, alice.checkLimitInCaller(6));
        assertEquals(new Probe(5, 0, 1_000, 1_000), alice.probeInCaller());
        assertEquals(3, gate.blockedCount("alice", Action.PUBLISH), "two refusals and a never, counted once each");

        final Quota ip = gate.quota("10.0.0.1", Action.AUTH);
        assertEquals(Floodgate.ADMITTED, ip.checkLimit(9));
        assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.1", Action.AUTH));
        assertEquals(6_000, ip.checkLimit(), "empty: the next token in 6 s");
        assertEquals(gate.probe("10.0.0.1", Action.AUTH), ip.probe());
        assertEquals(3, gate.checks().get(Action.PUBLISH).refused(), "two refusals and a never, by either way");
        assertEquals(4, gate.checks().get(Action.PUBLISH).admitted(), "four checks took the five tokens");
        assertEquals(1, gate.checks().get(Action.AUTH).refused());
    }

    @Test
    void shouldStartAfreshAfterAResetAndAfterTheJanitorReapedItsEntry()
    {
        final Quota alice = gate.quota("alice", Action.AUTH);
        assertEquals(Floodgate.ADMITTED, alice.checkLimit(10));
        assertTrue(gate.resetEntries("alice", Action.AUTH).contains("bucket"));
        assertEquals(Floodgate.ADMITTED, alice.checkLimit(10), "the reset bucket is full again for the handle");

        ticker.advanceMs(60_000); // full again: idle
        gate.cleanup();           // tombstones
        ticker.advanceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS);
        assertEquals(1, gate.cleanup(), "reaped");
        for (int i = 0; i < 50; i++)
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("other-" + i, Action.AUTH, 10)); // reuse the memory
        }
        assertEquals(Floodgate.ADMITTED, alice.checkLimit(10), "a new entry, full");
        assertEquals(6_000, alice.checkLimit());
        for (int i = 0; i < 50; i++)
        {
            assertEquals(6_000, gate.checkLimit("other-" + i, Action.AUTH), "no other entry was written by the handle");
        }
    }

    @Test
    void shouldFollowAPolicyChange()
    {
        final Quota alice = gate.quota("alice", Action.AUTH);
        assertEquals(Floodgate.ADMITTED, alice.checkLimit(4));
        gate.reconfigure(config().limit(Action.AUTH, 5, 60_000).build());
        assertEquals(Floodgate.ADMITTED, alice.checkLimit(), "the 4 spent carry over into the new units");
        assertEquals(12_000, alice.checkLimit(), "5 per minute: the next token in 12 s");
        assertEquals(5, alice.probe().limit());
    }

    @Test
    void shouldAnswerAFullTableAsTheByNameCheckDoes()
    {
        gate.close();
        gate = Floodgate.open(config().file(dir.resolve("small.map")).capacity(10).build());
        for (int i = 0; gate.stats().tableFullEvents() == 0; i++)
        {
            gate.checkLimit("filler-" + i, Action.AUTH);
        }
        final Quota late = gate.quota("late", Action.AUTH);
        assertEquals(gate.checkLimit("late", Action.AUTH), late.checkLimit(), "the unreachable rule answers both");
    }

    @Test
    void shouldRefuseEveryMethodAfterCloseAndBadArgumentsAtOnce()
    {
        final Quota alice = gate.quota("alice", Action.PUBLISH);
        assertThrows(IllegalArgumentException.class, () -> gate.quota("", Action.PUBLISH));
        assertThrows(NullPointerException.class, () -> gate.quota("alice", null));
        assertThrows(IllegalArgumentException.class, () -> alice.checkLimit(0));
        gate.close();
        assertThrows(IllegalStateException.class, alice::checkLimit);
        assertThrows(IllegalStateException.class, alice::checkLimitInCaller);
        assertThrows(IllegalStateException.class, alice::probe);
        assertThrows(IllegalStateException.class, () -> gate.quota("bob", Action.PUBLISH));
    }

    @Test
    void shouldAllocateNothingOnAWarmCheck()
    {
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
        gate.reconfigure(config().limit(Action.PUBLISH, 1_000_000, 1_000).limit(Action.AUTH, 1_000_000, 60_000)
            .build());
        final Quota window = gate.quota("alice", Action.PUBLISH);
        final Quota bucket = gate.quota("10.0.0.1", Action.AUTH);
        for (int i = 0; i < 20_000; i++)
        {
            window.checkLimitInCaller();
            bucket.checkLimit();
        }
        final long id = Thread.currentThread().getId();
        final long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < 100_000; i++)
        {
            window.checkLimitInCaller();
            bucket.checkLimit();
        }
        final long allocated = threads.getThreadAllocatedBytes(id) - before;
        assertTrue(allocated < 1_024, "200,000 warm checks allocated " + allocated + " bytes");
    }
}
