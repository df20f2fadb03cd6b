package dev.floodgate.door;

import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.LeaseWords;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
    /** A lease too small for balance lines (4 lines want at least 2 x 4 x 4 = 32): spends use the central balance. */
    private static final long SMALL = 7;
    /** A lease whose spends use the 4 lines: a chunk of 64 / (4 x 4) = 4 tokens. */
    private static final long LARGE = 64;

    private final UnsafeBuffer bytes = new UnsafeBuffer(new byte[EntryLayout.valueLength(Entry.KIND_LEASE, 4)]);
    private final Entry entry = new Entry(bytes);

    LeaseBalanceTest()
    {
        entry.publishGenerationVolatile(GENERATION);
        assertTrue(LeaseWords.casSequence(entry, 0, LeaseRefill.firstSequence(1_700_000_000_000L)));
    }

    @Test
    void shouldSpendAllOrNothingAndTakeAGiveBack()
    {
        assertEquals(LeaseBalance.SHORT, LeaseBalance.spend(entry, GENERATION, 1, SMALL), "a new lease holds nothing");
        assertTrue(LeaseRefill.commitGrant(entry, GENERATION, LeaseRefill.sequence(entry), 5, NOW));
        assertEquals(LeaseBalance.SHORT, LeaseBalance.spend(entry, GENERATION, 6, SMALL));
        assertEquals(5, LeaseWords.balanceVolatile(entry), "a short spend takes nothing");
        assertEquals(2, LeaseBalance.spend(entry, GENERATION, 3, SMALL), "the balance left");
        assertEquals(2, LeaseWords.balanceVolatile(entry));
        assertTrue(LeaseBalance.giveBack(entry, GENERATION, 3));
        assertEquals(5, LeaseWords.balanceVolatile(entry));
    }

    @Test
    void shouldWriteNothingOnceTheEntryChanged()
    {
        LeaseRefill.commitGrant(entry, GENERATION, LeaseRefill.sequence(entry), 5, NOW);
        final long sequence = LeaseRefill.sequence(entry);
        entry.publishGenerationVolatile(GENERATION + 1);
        assertEquals(LeaseBalance.GONE, LeaseBalance.spend(entry, GENERATION, 1, SMALL));
        assertEquals(LeaseBalance.GONE, LeaseBalance.spend(entry, GENERATION, 1, LARGE));
        assertFalse(LeaseBalance.giveBack(entry, GENERATION, 1));
        assertFalse(LeaseRefill.commitGrant(entry, GENERATION, sequence, 10, NOW));
        assertEquals(0, LeaseRefill.claimRefill(entry, GENERATION, NOW, TAKEOVER_NANOS, alive(42)));
        assertEquals(5, LeaseWords.balanceVolatile(entry));
        assertEquals(sequence, LeaseRefill.sequence(entry));
        assertEquals(0, LeaseWords.refillVolatile(entry));
    }

    @Test
    void shouldTakeOverAFetcherTheKernelSaysIsDeadOnceItsWordIsOlderThanACheckWaits()
    {
        final long first = LeaseRefill.claimRefill(entry, GENERATION, NOW, TAKEOVER_NANOS, alive(4242));
        final List<Long> asked = new ArrayList<>();
        final RefillHolders sibling = new RefillHolders(77, holder ->
        {
            asked.add(holder);
            return false; // 4242 was killed
        });
        final long probeAfter = LeaseWait.CHECK_WAIT_NANOS;
        assertEquals(0, LeaseRefill.claimRefill(entry, GENERATION, NOW + probeAfter - 1_000_000, TAKEOVER_NANOS,
            sibling), "a word younger than a check's wait is not asked about");
        assertEquals(List.of(), asked);
        assertEquals(0, LeaseRefill.claimRefill(entry, GENERATION, NOW + probeAfter, TAKEOVER_NANOS,
            alive(77)), "a live holder keeps its word until the takeover timeout");
        final long second = LeaseRefill.claimRefill(entry, GENERATION, NOW + probeAfter, TAKEOVER_NANOS, sibling);
        assertNotEquals(0, second, "a dead holder's word is taken over long before the timeout");
        assertEquals(List.of(4242L), asked, "the kernel was asked about the holder the word names");
        assertEquals(77, LeaseRefill.holderOf(second));
        LeaseRefill.releaseRefill(entry, GENERATION, first);
        assertEquals(second, LeaseWords.refillVolatile(entry), "the dead fetcher's late release clears nothing");
    }

    private static RefillHolders alive(final long holder)
    {
        return new RefillHolders(holder, h -> true);
    }

    @Test
    void shouldLetOneFetcherRefillAtATimeAndTakeOverADeadOne()
    {
        final long first = LeaseRefill.claimRefill(entry, GENERATION, NOW, TAKEOVER_NANOS, alive(4242));
        assertNotEquals(0, first);
        assertEquals(4242, LeaseRefill.holderOf(first));
        assertEquals(NOW / 1_000_000, LeaseRefill.sinceMs(first));
        assertEquals(0, LeaseRefill.claimRefill(entry, GENERATION, NOW + TAKEOVER_NANOS - 1_000_000, TAKEOVER_NANOS,
            alive(77)), "a fetch in flight keeps the word until its timeout");
        final long second =
            LeaseRefill.claimRefill(entry, GENERATION, NOW + TAKEOVER_NANOS, TAKEOVER_NANOS, alive(77));
        assertNotEquals(0, second, "a fetch older than the timeout is taken over");
        LeaseRefill.releaseRefill(entry, GENERATION, first);
        assertEquals(second, LeaseWords.refillVolatile(entry), "the fetcher taken over from clears nothing");
        LeaseRefill.releaseRefill(entry, GENERATION, second);
        assertEquals(0, LeaseWords.refillVolatile(entry));
    }

    @Test
    void shouldAddASequencesGrantOnceAndSkipPastAStaleOne()
    {
        final long sequence = LeaseRefill.sequence(entry);
        // a fetcher taken over from and its successor sent the same sequence: the server replayed one grant
        assertTrue(LeaseRefill.commitGrant(entry, GENERATION, sequence, 10, NOW));
        assertFalse(LeaseRefill.commitGrant(entry, GENERATION, sequence, 10, NOW));
        assertEquals(10, LeaseWords.balanceVolatile(entry));
        assertEquals(sequence + 1, LeaseRefill.sequence(entry));
        assertEquals(NOW, entry.touchedVolatile(), "a refill is what keeps a lease from the janitor");

        LeaseRefill.skipStale(entry, GENERATION, sequence + 1, 1_800_000_000_000L);
        assertEquals(LeaseRefill.firstSequence(1_800_000_000_000L), LeaseRefill.sequence(entry));
        LeaseRefill.skipStale(entry, GENERATION, LeaseRefill.sequence(entry), 0);
        assertEquals(LeaseRefill.firstSequence(1_800_000_000_000L) + 1, LeaseRefill.sequence(entry),
            "the sequence only grows");
    }

    @Test
    void shouldSpendALargeLeaseFromTheCpusLineAndTakeChunksFromTheCentralBalance()
    {
        LeaseRefill.commitGrant(entry, GENERATION, LeaseRefill.sequence(entry), 64, NOW);
        assertEquals(64, LeaseWords.centralVolatile(entry), "a grant lands in the central balance");
        assertEquals(64 - 5, LeaseBalance.spend(entry, GENERATION, 1, LARGE),
            "the line was empty: the cost and a chunk of 4 left the central balance, which the refill test reads");
        assertEquals(63, LeaseWords.balanceVolatile(entry));
        int onLine = 0;
        while (LeaseBalance.spend(entry, GENERATION, 1, LARGE) == LeaseBalance.SPENT_ON_LINE)
        {
            onLine++;
        }
        assertEquals(4, onLine, "the chunk was spent on the line without touching the central balance");
        assertEquals(64 - 10, LeaseWords.centralVolatile(entry), "then the next chunk");
        assertEquals(64 - 6, LeaseWords.balanceVolatile(entry), "six spent, none lost");
        assertEquals(64 - 6, LeaseBalance.takeAll(entry, GENERATION), "a give-back takes the lines too");
        assertEquals(0, LeaseWords.balanceVolatile(entry));
    }

    @Test
    void shouldGatherALeasesLastTokensFromEveryLineOrTakeNothing()
    {
        for (int line = 0; line < 4; line++)
        {
            assertTrue(LeaseWords.casLine(entry, line, 0, 1)); // four CPUs each kept one token
        }
        LeaseBalance.giveBack(entry, GENERATION, 1);
        assertEquals(LeaseBalance.SHORT, LeaseBalance.spend(entry, GENERATION, 6, LARGE));
        assertEquals(5, LeaseWords.balanceVolatile(entry), "a short spend takes nothing, wherever the tokens sat");
        assertEquals(0, LeaseBalance.spend(entry, GENERATION, 5, LARGE), "gathered from the lines and the centre");
        assertEquals(0, LeaseWords.balanceVolatile(entry));
    }

    @Test
    void shouldPayALinesShortfallFromTheCentralBalanceAndLeaveTheLineAChunk()
    {
        for (int line = 0; line < 4; line++)
        {
            assertTrue(LeaseWords.casLine(entry, line, 0, 3));
        }
        LeaseBalance.giveBack(entry, GENERATION, 64);
        assertEquals(64 - (10 - 3) - 4, LeaseBalance.spend(entry, GENERATION, 10, LARGE),
            "the line's 3 pay part of the 10; the central balance pays 7 and a chunk of 4");
        long onLines = 0;
        long most = 0;
        for (int line = 0; line < 4; line++)
        {
            onLines += LeaseWords.lineVolatile(entry, line);
            most = Math.max(most, LeaseWords.lineVolatile(entry, line));
        }
        assertEquals(4, most, "a line keeps a chunk, not a chunk beside what it had");
        assertEquals(3 * 3 + 4, onLines);
    }

    @Test
    void shouldFindTheLinesTokensForASpendWhoseOwnLeaseIsTooSmallForLines()
    {
        for (int line = 0; line < 4; line++)
        {
            assertTrue(LeaseWords.casLine(entry, line, 0, 1)); // a sibling JVM with a larger lease filled them
        }
        assertEquals(0, LeaseBalance.spend(entry, GENERATION, 3, SMALL), "gathered; the central balance is empty");
        assertEquals(1, LeaseWords.balanceVolatile(entry));
        assertEquals(LeaseBalance.SHORT, LeaseBalance.spend(entry, GENERATION, 2, SMALL));
        assertEquals(1, LeaseWords.balanceVolatile(entry), "a short gather takes nothing");
    }

    @Test
    void shouldSpendALeaseWrittenBeforeBalanceLinesFromItsCentralBalance()
    {
        final Entry old = new Entry(new UnsafeBuffer(new byte[EntryLayout.LEASE_BASE_LENGTH]));
        old.publishGenerationVolatile(GENERATION);
        assertEquals(0, LeaseWords.lineCount(old));
        LeaseBalance.giveBack(old, GENERATION, 64);
        assertEquals(60, LeaseBalance.spend(old, GENERATION, 4, LARGE), "one word, as before");
        assertEquals(60, LeaseBalance.takeAll(old, GENERATION));
    }

    @ParameterizedTest
    @ValueSource(longs = {SMALL, LARGE})
    void shouldNeverSpendMoreThanWasGrantedUnderRacingSpendersAndFetchers(final long lease)
        throws InterruptedException
    {
        final AtomicLong granted = new AtomicLong();
        final AtomicLong spent = new AtomicLong();
        final AtomicLong takenBack = new AtomicLong();
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
                    if (random.nextInt(500) == 0)
                    {
                        takenBack.addAndGet(LeaseBalance.takeAll(entry, GENERATION)); // a give-back's first step
                    }
                    if (LeaseBalance.spend(entry, GENERATION, cost, lease) >= 0)
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
                    final long claim = LeaseRefill.claimRefill(entry, GENERATION, now, TAKEOVER_NANOS, alive(pid));
                    if (claim != 0)
                    {
                        final long sequence = LeaseRefill.sequence(entry);
                        if (LeaseRefill.commitGrant(entry, GENERATION, sequence, 7, now))
                        {
                            granted.addAndGet(7);
                        }
                        LeaseRefill.releaseRefill(entry, GENERATION, claim);
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
        assertEquals(granted.get(), spent.get() + takenBack.get() + LeaseWords.balanceVolatile(entry),
            "every token granted is spent, taken back or held");
        assertTrue(LeaseWords.balanceVolatile(entry) >= 0);
    }
}
