package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.LeaseWords;
import dev.floodgate.store.Resolved;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The idle give-back ({@link LeaseGiveBack}) with a fake {@link LeaseSource}: lease entries over byte arrays, as in
 * {@link LeaseBalanceTest}; the clock is a field the test moves. The action's cluster window is 1 s. Both found by
 * review; both failed before.
 */
class LeaseGiveBackIdleTest
{
    private static final long GENERATION = 7;
    private static final Action ACTION = LeaseFetcherTest.ACTION;
    private static final long WINDOW_MS = 1_000;
    private static final long TAKEOVER_NANOS = 3_000_000_000L;
    private static final long MS = 1_000_000L;

    private final AtomicLong clock = new AtomicLong(3_600_000_000_000L);
    private final ScheduledExecutorService server = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop()
    {
        server.shutdownNow();
    }

    /**
     * A fetcher killed mid-refill (SIGKILL, OOM kill) leaves the lease's refill word naming a dead holder. The
     * give-back itself takes that word over ({@link LeaseRefill#claimRefill}: the holder is dead, or the word
     * is older than the takeover bound), but {@link LeaseGiveBack#giveBackIdle} read any non-zero refill word as
     * "a refill in flight: in use" and restarted the lease's idle clock on every pass. The warm path never clears the
     * word either ({@code LeaseFetcher.refillIfLow} returns when the word is non-zero), and the janitor never drops
     * the entry ({@code Janitor.isIdle} requires the word to be 0). So a key that was being refilled when a sibling
     * JVM died and then went quiet keeps its balance in the file, never given back to the cluster, and its entry is
     * never reaped: until the node's last close (short identifiers) or the file is made anew at the next boot.
     */
    @Test
    void shouldGiveBackAnIdleLeaseWhoseRefillWordADeadFetcherLeft()
    {
        final Source source = new Source(0);
        final QuotaSlot slot = lease("alice", 5);
        // a sibling (holder 99) claimed the word 10 s ago and was killed before its completion released it
        final long deadWord = ((clock.get() / MS - 10_000) & ((1L << 40) - 1)) << LeaseRefill.HOLDER_BITS | 99;
        LeaseWords.casRefill(slot.entry, 0, deadWord);
        final LeaseGiveBack giveBacks = giveBacks(source, new RefillHolders(42, holder -> holder == 42));
        giveBacks.remember(slot, ACTION);

        int given = 0;
        for (int pass = 0; pass < 5; pass++) // five passes over four cluster windows
        {
            given += giveBacks.giveBackIdle();
            clock.addAndGet(WINDOW_MS * MS);
        }

        assertEquals(List.of("refund(alice, 5)"), source.requests, "the idle lease's 5 tokens were given back");
        assertEquals(1, given);
        assertEquals(0, LeaseWords.balanceVolatile(slot.entry));
    }

    /**
     * A refund waited {@code 2 x 50 ms}, while the engine's source ({@code RedisLeaseSource}) has a 1 s bound, raised
     * from 50 ms because on a loaded host most round trips took longer. A refund answered within the source's bound
     * but after 100 ms was taken for "Redis unavailable": the pass stopped there, so on such a host each idle pass,
     * and the node's last close, gave back one lease at most. A refund now waits for the source's bound.
     */
    @Test
    void shouldWaitForARefundThatAnswersWithinTheSourcesBound()
    {
        final Source source = new Source(150); // Redis answers in 150 ms: within the source's 1 s bound
        final QuotaSlot alice = lease("alice", 5);
        final QuotaSlot bob = lease("bob", 4);
        final LeaseGiveBack giveBacks = giveBacks(source, new RefillHolders(42, holder -> true));
        giveBacks.remember(alice, ACTION);
        giveBacks.remember(bob, ACTION);

        giveBacks.giveBackIdle(); // sees both
        clock.addAndGet(WINDOW_MS * MS);
        final int given = giveBacks.giveBackIdle();

        assertEquals(2, given, "both idle leases given back; refunds sent: " + source.requests);
    }

    private QuotaSlot lease(final String identifier, final long balance)
    {
        final Entry entry = new Entry(new UnsafeBuffer(new byte[EntryLayout.valueLength(Entry.KIND_LEASE, 4)]));
        entry.publishGenerationVolatile(GENERATION);
        LeaseWords.casSequence(entry, 0, LeaseRefill.firstSequence(1_700_000_000_000L));
        LeaseBalance.giveBack(entry, GENERATION, balance);
        return new QuotaSlot(identifier, identifier.hashCode(), ClusterGate.KIND | ACTION.ordinal(),
            new Resolved(entry, GENERATION, 100, WINDOW_MS, 0), LeaseFetcherTest.LEASE);
    }

    private LeaseGiveBack giveBacks(final LeaseSource source, final RefillHolders holders)
    {
        final long[] windows = new long[Action.values().length];
        windows[ACTION.ordinal()] = WINDOW_MS;
        return new LeaseGiveBack(source, clock::get, windows, TAKEOVER_NANOS, holders);
    }

    /** Applies every refund, answering after {@code delayMs}; a 1 s bound, as the engine's Redis source has. */
    private final class Source implements LeaseSource
    {
        final List<String> requests = new CopyOnWriteArrayList<>();
        private final long delayMs;

        Source(final long delayMs)
        {
            this.delayMs = delayMs;
        }

        @Override
        public CompletionStage<Grant> lease(final Action action, final String identifier, final long sequence,
            final long want)
        {
            throw new AssertionError("no lease in this test");
        }

        @Override
        public CompletionStage<Grant> refund(final Action action, final String identifier, final long sequence,
            final long tokens)
        {
            requests.add("refund(" + identifier + ", " + tokens + ")");
            final Grant applied = new Grant(GRANTED, tokens, 0);
            if (delayMs == 0)
            {
                return CompletableFuture.completedFuture(applied);
            }
            final CompletableFuture<Grant> answer = new CompletableFuture<>();
            server.schedule(() -> answer.complete(applied), delayMs, TimeUnit.MILLISECONDS);
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
