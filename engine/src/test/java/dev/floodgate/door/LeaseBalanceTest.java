package dev.floodgate.door;

import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.LeaseWords;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The node's balance of a cluster lease: spends all or nothing, never on a reclaimed entry; one refill at a time,
 * taken over after its timeout; a sequence number's grant added once however many fetchers sent it. A byte array
 * stands in for the entry's memory, as in {@link EntryReuseTest}.
 */
class LeaseBalanceTest
{
    private static final long GENERATION = 7;
    private static final long TAKEOVER_NANOS = 1_000_000_000L;
    private static final long NOW = 3_600_000_000_000L;

    private final UnsafeBuffer bytes = new UnsafeBuffer(new byte[EntryLayout.valueLength(Entry.KIND_LEASE, 4)]);
    private final Entry entry = new Entry(bytes);

    LeaseBalanceTest()
    {
        entry.publishGenerationVolatile(GENERATION);
        assertTrue(LeaseWords.casSequence(entry, 0, LeaseBalance.firstSequence(1_700_000_000_000L)));
    }

    @Test
    void shouldSpendAllOrNothingAndTakeAGiveBack()
    {
        assertEquals(LeaseBalance.SHORT, LeaseBalance.spend(entry, GENERATION, 1), "a new lease holds nothing");
        assertTrue(LeaseBalance.commitGrant(entry, GENERATION, LeaseBalance.sequence(entry), 5, NOW));
        assertEquals(LeaseBalance.SHORT, LeaseBalance.spend(entry, GENERATION, 6));
        assertEquals(5, LeaseWords.balanceVolatile(entry), "a short spend takes nothing");
        assertEquals(2, LeaseBalance.spend(entry, GENERATION, 3), "the balance left");
        assertEquals(2, LeaseWords.balanceVolatile(entry));
        assertTrue(LeaseBalance.giveBack(entry, GENERATION, 3));
        assertEquals(5, LeaseWords.balanceVolatile(entry));
    }

    @Test
    void shouldWriteNothingOnceTheEntryChanged()
    {
        LeaseBalance.commitGrant(entry, GENERATION, LeaseBalance.sequence(entry), 5, NOW);
        final long sequence = LeaseBalance.sequence(entry);
        entry.publishGenerationVolatile(GENERATION + 1);
        assertEquals(LeaseBalance.GONE, LeaseBalance.spend(entry, GENERATION, 1));
        assertFalse(LeaseBalance.giveBack(entry, GENERATION, 1));
        assertFalse(LeaseBalance.commitGrant(entry, GENERATION, sequence, 10, NOW));
        assertEquals(0, LeaseBalance.claimRefill(entry, GENERATION, NOW, TAKEOVER_NANOS, alive(42)));
        assertEquals(5, LeaseWords.balanceVolatile(entry));
        assertEquals(sequence, LeaseBalance.sequence(entry));
        assertEquals(0, LeaseWords.refillVolatile(entry));
    }

    @Test
    void shouldTakeOverAFetcherTheKernelSaysIsDeadOnceItsWordIsOlderThanACheckWaits()
    {
        final long first = LeaseBalance.claimRefill(entry, GENERATION, NOW, TAKEOVER_NANOS, alive(4242));
        final List<Long> asked = new ArrayList<>();
        final RefillHolders sibling = new RefillHolders(77, holder ->
        {
            asked.add(holder);
            return false; // 4242 was killed
        });
        final long probeAfter = ClusterGate.CHECK_WAIT_NANOS;
        assertEquals(0, LeaseBalance.claimRefill(entry, GENERATION, NOW + probeAfter - 1_000_000, TAKEOVER_NANOS,
            sibling), "a word younger than a check's wait is not asked about");
        assertEquals(List.of(), asked);
        assertEquals(0, LeaseBalance.claimRefill(entry, GENERATION, NOW + probeAfter, TAKEOVER_NANOS,
            alive(77)), "a live holder keeps its word until the takeover timeout");
        final long second = LeaseBalance.claimRefill(entry, GENERATION, NOW + probeAfter, TAKEOVER_NANOS, sibling);
        assertNotEquals(0, second, "a dead holder's word is taken over long before the timeout");
        assertEquals(List.of(4242L), asked, "the kernel was asked about the holder the word names");
        assertEquals(77, LeaseBalance.holderOf(second));
        LeaseBalance.releaseRefill(entry, GENERATION, first);
        assertEquals(second, LeaseWords.refillVolatile(entry), "the dead fetcher's late release clears nothing");
    }

    private static RefillHolders alive(final long holder)
    {
        return new RefillHolders(holder, h -> true);
    }

    @Test
    void shouldLetOneFetcherRefillAtATimeAndTakeOverADeadOne()
    {
        final long first = LeaseBalance.claimRefill(entry, GENERATION, NOW, TAKEOVER_NANOS, alive(4242));
        assertNotEquals(0, first);
        assertEquals(4242, LeaseBalance.holderOf(first));
        assertEquals(NOW / 1_000_000, LeaseBalance.sinceMs(first));
        assertEquals(0, LeaseBalance.claimRefill(entry, GENERATION, NOW + TAKEOVER_NANOS - 1_000_000, TAKEOVER_NANOS,
            alive(77)), "a fetch in flight keeps the word until its timeout");
        final long second =
            LeaseBalance.claimRefill(entry, GENERATION, NOW + TAKEOVER_NANOS, TAKEOVER_NANOS, alive(77));
        assertNotEquals(0, second, "a fetch older than the timeout is taken over");
        LeaseBalance.releaseRefill(entry, GENERATION, first);
        assertEquals(second, LeaseWords.refillVolatile(entry), "the fetcher taken over from clears nothing");
        LeaseBalance.releaseRefill(entry, GENERATION, second);
        assertEquals(0, LeaseWords.refillVolatile(entry));
    }

    @Test
    void shouldAddASequencesGrantOnceAndSkipPastAStaleOne()
    {
        final long sequence = LeaseBalance.sequence(entry);
        // a fetcher taken over from and its successor sent the same sequence: the server replayed one grant
        assertTrue(LeaseBalance.commitGrant(entry, GENERATION, sequence, 10, NOW));
        assertFalse(LeaseBalance.commitGrant(entry, GENERATION, sequence, 10, NOW));
        assertEquals(10, LeaseWords.balanceVolatile(entry));
        assertEquals(sequence + 1, LeaseBalance.sequence(entry));
        assertEquals(NOW, entry.touchedVolatile(), "a refill is what keeps a lease from the janitor");

        LeaseBalance.skipStale(entry, GENERATION, sequence + 1, 1_800_000_000_000L);
        assertEquals(LeaseBalance.firstSequence(1_800_000_000_000L), LeaseBalance.sequence(entry));
        LeaseBalance.skipStale(entry, GENERATION, LeaseBalance.sequence(entry), 0);
        assertEquals(LeaseBalance.firstSequence(1_800_000_000_000L) + 1, LeaseBalance.sequence(entry),
            "the sequence only grows");
    }

    @Test
    void shouldNeverSpendMoreThanWasGrantedUnderRacingSpendersAndFetchers() throws InterruptedException
    {
        final AtomicLong granted = new AtomicLong();
        final AtomicLong spent = new AtomicLong();
        final AtomicLong clock = new AtomicLong(NOW);
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 6; t++)
        {
            final long pid = 100 + t;
            threads.add(new Thread(() ->
            {
                final ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int i = 0; i < 50_000; i++)
                {
                    final long cost = 1 + random.nextInt(3);
                    if (LeaseBalance.spend(entry, GENERATION, cost) >= 0)
                    {
                        spent.addAndGet(cost);
                        if (random.nextInt(8) == 0 && LeaseBalance.giveBack(entry, GENERATION, cost))
                        {
                            spent.addAndGet(-cost);
                        }
                        continue;
                    }
                    // stalled fetchers are taken over now and then: the clock jumps past the timeout
                    final long now = clock.addAndGet(random.nextInt(50) == 0 ? TAKEOVER_NANOS : 1_000);
                    final long claim = LeaseBalance.claimRefill(entry, GENERATION, now, TAKEOVER_NANOS, alive(pid));
                    if (claim != 0)
                    {
                        final long sequence = LeaseBalance.sequence(entry);
                        if (LeaseBalance.commitGrant(entry, GENERATION, sequence, 7, now))
                        {
                            granted.addAndGet(7);
                        }
                        LeaseBalance.releaseRefill(entry, GENERATION, claim);
                    }
                }
            }));
        }
        threads.forEach(Thread::start);
        for (final Thread thread : threads)
        {
            thread.join();
        }
        assertTrue(granted.get() > 0, "the premise: refills happened");
        assertEquals(granted.get(), spent.get() + LeaseWords.balanceVolatile(entry),
            "every token granted is spent or held");
        assertTrue(LeaseWords.balanceVolatile(entry) >= 0);
    }
}
