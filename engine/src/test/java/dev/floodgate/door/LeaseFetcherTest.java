package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.LeaseWords;
import dev.floodgate.store.Resolved;
import dev.floodgate.testkit.Await;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A lease source that breaks its contract (throws, or returns no stage, instead of answering through the stage)
 * must not leave the node's refill word claimed: every JVM of the node would wait for a refill nobody makes until
 * the takeover, 3 source bounds later, and the check would throw into the broker. A byte array stands in for the
 * lease entry's memory, as in {@link LeaseBalanceTest}; the clock is a field the test moves.
 */
class LeaseFetcherTest
{
    private static final long GENERATION = 7;
    static final Action ACTION = Action.PUBLISH;
    static final long LEASE = 10;

    private final Entry entry = new Entry(new UnsafeBuffer(new byte[EntryLayout.valueLength(Entry.KIND_LEASE, 4)]));
    private final QuotaSlot slot;
    private final AtomicLong now = new AtomicLong(3_600_000_000_000L);
    private final Object owner = new Object();

    LeaseFetcherTest()
    {
        entry.publishGenerationVolatile(GENERATION);
        assertTrue(LeaseWords.casSequence(entry, 0, LeaseRefill.firstSequence(1_700_000_000_000L)));
        slot = new QuotaSlot("alice", 1, ClusterGate.KIND | ACTION.ordinal(),
            new Resolved(entry, GENERATION, 100, 1_000, 0), LEASE);
    }

    @Test
    void shouldReleaseTheRefillWordAndAnswerUnavailableWhenTheSourceThrows()
    {
        final ScriptedSource source = new ScriptedSource();
        source.answers.add(() ->
        {
            throw new IllegalStateException("rejected synchronously");
        });
        source.answers.add(() -> null);
        source.answers.add(() ->
            CompletableFuture.completedFuture(new LeaseSource.Grant(LeaseSource.GRANTED, LEASE, 0)));
        final LeaseFetcher fetcher = fetcher(source);

        for (int broken = 0; broken < 2; broken++)
        {
            final CompletableFuture<Void> first = fetcher.fetch(slot, "alice", ACTION, LEASE, now.get());
            assertNotNull(first, "this thread won the refill word");
            assertTrue(first.isDone(), "a broken source ends the fetch at once, not at its bound");
            assertEquals(0, LeaseWords.refillVolatile(entry), "the refill word is free again (answer " + broken + ")");
            assertTrue(fetcher.isDown(ACTION.ordinal(), now.get()), "the check answers the action's fallback");
            now.addAndGet(2 * LeaseWait.CHECK_WAIT_NANOS); // the fallback's memory of the failure ends
            assertFalse(fetcher.isDown(ACTION.ordinal(), now.get()));
        }

        final CompletableFuture<Void> next = fetcher.fetch(slot, "alice", ACTION, LEASE, now.get());
        assertNotNull(next, "the next fetch is not held up by the broken ones' claims");
        assertEquals(LEASE, LeaseWords.balanceVolatile(entry), "and its grant is committed");
        assertEquals(0, LeaseWords.refillVolatile(entry));
        assertEquals(3, source.calls);
    }

    @Test
    void shouldReleaseTheRefillWordAndRethrowAnError()
    {
        final ScriptedSource source = new ScriptedSource();
        final StackOverflowError error = new StackOverflowError();
        source.answers.add(() ->
        {
            throw error;
        });
        final LeaseFetcher fetcher = fetcher(source);

        assertSame(error, assertThrows(StackOverflowError.class,
            () -> fetcher.fetch(slot, "alice", ACTION, LEASE, now.get())));
        assertEquals(0, LeaseWords.refillVolatile(entry), "the refill word is free again");
    }

    /**
     * A short check waits for its lease, up to its bound, on any thread. On a thread whose interrupt status was set
     * (a pooled thread after a cancelled task) it returned at once and the check answered the fallback, although its
     * lease came moments later (found with the guard's wait, which spun the same way). The status is kept.
     */
    @Test
    @Timeout(60)
    void shouldWaitForTheLeaseOnAnInterruptedThreadAndKeepItsStatus() throws Exception
    {
        final LeaseFetcher fetcher = fetcher(new ScriptedSource());
        final CompletableFuture<Void> commit = new CompletableFuture<>();
        final AtomicBoolean doneBeforeTheLease = new AtomicBoolean();
        final AtomicBoolean keptStatus = new AtomicBoolean();
        final Thread check = new Thread(() ->
        {
            Thread.currentThread().interrupt();
            fetcher.awaitUntil(commit, now.get() + 30_000_000_000L); // the clock stands still: 30 s of bound
            doneBeforeTheLease.set(!commit.isDone());
            keptStatus.set(Thread.currentThread().isInterrupted());
        });
        check.start();
        Await.until("the check waits (parked) for its lease", 30, () -> !check.isAlive() ||
            check.getState() == Thread.State.TIMED_WAITING || check.getState() == Thread.State.WAITING);
        commit.complete(null); // the lease lands
        check.join();
        assertFalse(doneBeforeTheLease.get(), "the interrupted check stopped waiting before its lease landed");
        assertTrue(keptStatus.get(), "the check lost its caller's interrupt status");
    }

    /**
     * A check's wait for its lease is bounded on the engine's ticker, as every other bound of a check is. It was
     * bounded on the wall clock (the future's timed get), so a check on a ticker that had not moved answered the
     * fallback after 50 ms of real time: on a loaded host, where a round trip to a real redis-server takes longer,
     * tests on a manual ticker were refused "for want of a lease" although the lease came moments later (found
     * beside four CPU hogs, in {@code ClusterGiveBackRaceTest}). Real time passes here on purpose, four bounds of it,
     * while the ticker stands still.
     */
    @Test
    @Timeout(60)
    void shouldBoundTheWaitForTheLeaseOnTheTickerNotTheWallClock() throws Exception
    {
        final LeaseFetcher fetcher = fetcher(new ScriptedSource());
        final CompletableFuture<Void> commit = new CompletableFuture<>();
        final AtomicBoolean doneBeforeTheLease = new AtomicBoolean();
        final Thread check = new Thread(() ->
        {
            fetcher.awaitUntil(commit, now.get() + LeaseWait.CHECK_WAIT_NANOS);
            doneBeforeTheLease.set(!commit.isDone());
        });
        check.start();
        Await.until("the check waits (parked) for its lease", 30, () -> !check.isAlive() ||
            check.getState() == Thread.State.TIMED_WAITING || check.getState() == Thread.State.WAITING);
        check.join(TimeUnit.NANOSECONDS.toMillis(4 * LeaseWait.CHECK_WAIT_NANOS)); // the ticker stands still
        commit.complete(null); // the lease lands
        check.join();
        assertFalse(doneBeforeTheLease.get(), "the check gave up its lease after 50 ms of wall clock, its ticker " +
            "standing still");
    }

    private LeaseFetcher fetcher(final LeaseSource source)
    {
        return fetcher(source, owner, now, LeaseFetcher.TAKEOVER_BOUNDS * 1_000_000_000L,
            new RefillHolders(42, holder -> true));
    }

    /** A fetcher as the gate makes one, for {@link #ACTION} only: 100 a second, leased {@link #LEASE} at a time. */
    static LeaseFetcher fetcher(final LeaseSource source, final Object owner, final AtomicLong clock,
        final long takeoverNanos, final RefillHolders holders)
    {
        final int n = Action.values().length;
        final long[] limits = new long[n];
        final long[] windows = new long[n];
        final long[] leases = new long[n];
        limits[ACTION.ordinal()] = 100;
        windows[ACTION.ordinal()] = 1_000;
        leases[ACTION.ordinal()] = LEASE;
        return new LeaseFetcher(source, owner, clock::get, limits, windows, leases, takeoverNanos, holders,
            new LeaseGiveBack(source, clock::get, windows, takeoverNanos, holders), new ClusterCounters(n));
    }

    /** Answers each lease with the next scripted answer. */
    private static final class ScriptedSource implements LeaseSource
    {
        interface Answer
        {
            CompletionStage<Grant> get();
        }

        final List<Answer> answers = new ArrayList<>();
        int calls;

        @Override
        public CompletionStage<Grant> lease(final Action action, final String identifier, final long sequence,
            final long want)
        {
            return answers.get(calls++).get();
        }

        @Override
        public CompletionStage<Grant> refund(final Action action, final String identifier, final long sequence,
            final long tokens)
        {
            throw new AssertionError("no refund in this test");
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
