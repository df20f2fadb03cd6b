package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.LeaseWords;
import dev.floodgate.store.Resolved;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * A refill word claimed by another thread or JVM after the caller read its clock is younger than the caller's reading.
 * {@link LeaseRefill#claimRefill} computed its age as {@code (now - since) & MS_MASK}, which turned that negative age
 * into about 2^40 ms, past the takeover bound: the live fetch was taken over at once, two requests for the node's
 * bucket were in flight with one sequence, and a STALE answer to the second lost the first's grant. Every caller
 * reads its clock before it claims ({@code LeaseWait.whenShort}, {@code LeaseFetcher.refillIfLow},
 * {@code LeaseRefund.giveBack}); a millisecond boundary between the two is enough. Found by review; both tests
 * failed before.
 */
class RefillClaimClockTest
{
    private static final long GENERATION = 7;
    private static final long TAKEOVER_NANOS = 3_000_000_000L;
    private static final long NOW = 3_600_000_000_000L;
    private static final long MS = 1_000_000L;
    private static final Action ACTION = LeaseFetcherTest.ACTION;
    private static final long LEASE = LeaseFetcherTest.LEASE;

    private final Entry entry = new Entry(new UnsafeBuffer(new byte[EntryLayout.valueLength(Entry.KIND_LEASE, 4)]));

    RefillClaimClockTest()
    {
        entry.publishGenerationVolatile(GENERATION);
        LeaseWords.casSequence(entry, 0, LeaseRefill.firstSequence(1_700_000_000_000L));
    }

    @Test
    void shouldNotTakeOverALiveFetchClaimedJustAfterTheCallerReadItsClock()
    {
        final RefillHolders first = new RefillHolders(42, holder -> true);
        final RefillHolders second = new RefillHolders(77, holder -> true); // every holder alive
        final long claim = LeaseRefill.claimRefill(entry, GENERATION, NOW + MS, TAKEOVER_NANOS, first);
        assertEquals(42, LeaseRefill.holderOf(claim), "the first fetcher holds the word");

        // the second read its clock 1 ms earlier (before the first claimed), then tries to claim
        final long taken = LeaseRefill.claimRefill(entry, GENERATION, NOW, TAKEOVER_NANOS, second);

        assertEquals(0, taken, "a live fetch 0 ms old (claimed after this caller's clock read) is not taken over");
        assertEquals(claim, LeaseWords.refillVolatile(entry));
    }

    /**
     * The consequence through two JVMs' fetchers: the second sends the same sequence with a different want (a check's
     * cost above the lease size, {@code whenShort} asks max(cost, lease)); the server applies the first and answers the
     * second STALE; the STALE completion moves the sequence past the first's, whose grant is then never committed.
     */
    @Test
    void shouldNotLoseAGrantToASecondFetchStartedOnAStaleClockReading()
    {
        final HeldSource source = new HeldSource();
        final QuotaSlot slotA = slot();
        final QuotaSlot slotB = slot();
        final LeaseFetcher jvmA = fetcher(source, new RefillHolders(42, holder -> true));
        final LeaseFetcher jvmB = fetcher(source, new RefillHolders(77, holder -> true));

        final long nowB = NOW; // JVM B's check read its clock here, then was descheduled for a millisecond
        final CompletableFuture<Void> a = jvmA.fetch(slotA, "alice", ACTION, LEASE, NOW + MS);
        assertNotNull(a, "A wins the free refill word");
        final CompletableFuture<Void> b = jvmB.fetch(slotB, "alice", ACTION, 25, nowB);

        if (b != null) // on main: B took A's live word over and sent the same sequence
        {
            // the server applies A's request, answers B's (same seq, another amount) STALE; B's answer comes first
            source.answers.get(1).complete(new LeaseSource.Grant(LeaseSource.STALE, 0, 0));
            source.answers.get(0).complete(new LeaseSource.Grant(LeaseSource.GRANTED, LEASE, 0));
        }
        else
        {
            source.answers.get(0).complete(new LeaseSource.Grant(LeaseSource.GRANTED, LEASE, 0));
        }
        assertEquals(LEASE, LeaseWords.balanceVolatile(entry), "the grant Redis gave the node is in its balance; " +
            "requests sent: " + source.requests);
        assertNull(b, "one request in flight for the node's bucket");
    }

    private QuotaSlot slot()
    {
        return new QuotaSlot("alice", 1, ClusterGate.KIND | ACTION.ordinal(),
            new Resolved(entry, GENERATION, 100, 1_000, 0), LEASE);
    }

    private final Object owner = new Object();
    private final AtomicLong clock = new AtomicLong(NOW + MS);

    private LeaseFetcher fetcher(final LeaseSource source, final RefillHolders holders)
    {
        return LeaseFetcherTest.fetcher(source, owner, clock, TAKEOVER_NANOS, holders);
    }

    /** Holds every lease's answer for the test to complete. */
    static final class HeldSource implements LeaseSource
    {
        final List<CompletableFuture<Grant>> answers = new ArrayList<>();
        final List<String> requests = new ArrayList<>();

        @Override
        public CompletionStage<Grant> lease(final Action action, final String identifier, final long sequence,
            final long want)
        {
            requests.add("lease(seq " + sequence + ", want " + want + ")");
            final CompletableFuture<Grant> answer = new CompletableFuture<>();
            answers.add(answer);
            return answer;
        }

        @Override
        public CompletionStage<Grant> refund(final Action action, final String identifier, final long sequence,
            final long tokens)
        {
            requests.add("refund(seq " + sequence + ", " + tokens + ")");
            final CompletableFuture<Grant> answer = new CompletableFuture<>();
            answers.add(answer);
            return answer;
        }

        @Override
        public long timeoutMs()
        {
            return 1_000;
        }

        @Override
        public void close()
        {
        }
    }
}
