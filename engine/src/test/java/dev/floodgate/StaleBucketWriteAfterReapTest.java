package dev.floodgate;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Review (rv-cache): {@code TokenBucket.tryAcquire} reads the clock (a {@link Ticker} call: {@code System.nanoTime},
 * or whatever ticker the operator configured) <em>between</em> its generation test and its compare-and-set, so the
 * window NOTES.md ("Reclamation") calls "two adjacent instructions" holds a call. A check that passed the generation
 * test of its warm slot and is held in that read while the janitor tombstones and reaps its entry and another key
 * reuses the memory then writes its compare-and-set into the other key's bucket whenever that key's word equals the
 * one it loaded.
 *
 * {@code BucketGiveBack.claimStart} (a charge's and a clustered check's bucket claim) reads it in the same place.
 *
 * <p>Driven deterministically: the ticker runs the janitor's two passes and the other keys' checks inside the
 * checking thread's clock read in {@code tryAcquire} (found by its stack). "alice" is a PUBLISH bucket of 7 per
 * second (units of ns / 7), the other keys AUTH buckets of 10 per minute (units of ns); the moment of their checks is
 * chosen so that a fresh key spending all 10 tokens leaves exactly the word alice's check loaded. Alice's stale
 * compare-and-set then lands in that key's entry: its word reads as a full bucket again, and the key is admitted
 * 10 more times within the minute (20 of a limit of 10). Fails on the current code; passes once the clock is read
 * before the generation test (after the TAT load, which keeps the earlier fix: a reading never behind the TAT's).
 */
@Timeout(120)
class StaleBucketWriteAfterReapTest
{
    private static final long MS = 1_000_000L;
    private static final long START = 3_600_000 * MS;

    @TempDir
    Path dir;

    private Floodgate gate;

    /** A manual ticker that runs an action once, inside the owner's clock read made from {@code tryAcquire}. */
    private static final class InClaimTicker implements Ticker
    {
        final ManualTicker time = new ManualTicker(START);
        volatile Runnable action;
        volatile Thread owner;
        volatile String method = "tryAcquire";

        @Override
        public long nanos()
        {
            final Runnable a = action;
            if (a != null && Thread.currentThread() == owner && StackWalker.getInstance()
                .walk(s -> s.anyMatch(f -> f.getMethodName().equals(method))))
            {
                action = null;
                a.run();
            }
            return time.nanos();
        }
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
    void shouldNotWriteAReapedEntrysMemoryFromACheckHeldBetweenItsGenerationTestAndItsCompareAndSet()
    {
        run("tryAcquire");
    }

    /** The same through a charge, whose bucket claim is {@code BucketGiveBack.claimStart} (same order of reads). */
    @Test
    void shouldNotWriteAReapedEntrysMemoryFromAChargeHeldBetweenItsGenerationTestAndItsCompareAndSet()
    {
        run("claimStart");
    }

    private void run(final String method)
    {
        final InClaimTicker ticker = new InClaimTicker();
        ticker.method = method;
        gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("quota.map")).capacity(1_000).ticker(ticker)
            .limit(Action.AUTH, 10, 60_000).limit(Action.PUBLISH, 7, 1_000)
            .cleanupIntervalMs(FloodgateConfig.MAX_CLEANUP_INTERVAL_MS) // no background pass: cleanup() drives it
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).build());

        // alice: 7 per second, scale 7. All 7 at START: TAT word = 7 START + 7e9 (units of ns / 7)
        final Quota alice = gate.quota("alice", Action.PUBLISH);
        assertEquals(Floodgate.ADMITTED, alice.checkLimit(7));
        final long aliceWord = 7 * START + 7_000_000_000L;
        ticker.time.advanceMs(2_000); // refilled: idle

        // a fresh AUTH bucket (scale 1, T = 6e9) spending 10 at t leaves t + 6e10: pick t to match alice's word
        final long reuseAt = aliceWord - 60_000_000_000L;
        final List<String> others = new ArrayList<>();
        for (int i = 0; i < 300; i++)
        {
            others.add("other-" + i);
        }
        ticker.owner = Thread.currentThread();
        ticker.action = () ->
        {
            // alice's check passed its generation test and now reads the clock: the janitor runs meanwhile
            assertTrue(gate.cleanup() >= 0); // tombstones alice (idle)
            ticker.time.advanceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS);
            assertTrue(gate.cleanup() >= 1, "alice reaped");
            ticker.time.set(reuseAt);
            for (final String other : others)
            {
                assertEquals(Floodgate.ADMITTED, gate.checkLimit(other, Action.AUTH, 10)); // one reuses alice's memory
            }
        };
        if (method.equals("tryAcquire"))
        {
            alice.checkLimit(); // held in its clock read while all of the above happens
        }
        else
        {
            gate.charge(List.of(Charge.bucket("alice", Action.PUBLISH, 1)));
        }
        assertTrue(ticker.action == null, "the hook ran inside " + method);

        int over = 0;
        for (final String other : others)
        {
            if (gate.checkLimit(other, Action.AUTH) == Floodgate.ADMITTED)
            {
                over++;
            }
        }
        assertEquals(0, over, "keys that spent all 10 of 10 per minute and were admitted again at the same instant: " +
            "a check of alice wrote into a reaped entry's memory, now theirs");
    }
}
