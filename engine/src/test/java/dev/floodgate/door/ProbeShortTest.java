package dev.floodgate.door;

import dev.floodgate.Action;
import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.LeaseWords;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link LeaseWait#probeShort} counts a refill word as a round trip in flight exactly when a check would wait for it
 * rather than take it over ({@link LeaseRefill#heldNow}, the claim's own test): a word younger than a check's wait, or
 * older with its holder alive, until the takeover bound. A word whose holder the kernel says is dead, or one past the
 * takeover bound, is one a check takes over and leases again, so the probe takes that lease as granted. A byte array
 * stands in for the lease entry, as in {@link LeaseFetcherTest}; the clock is a field the test moves.
 */
class ProbeShortTest
{
    private static final long GENERATION = 7;
    private static final long FALLBACK_MS = 7;
    private static final long MS = 1_000_000L;
    private static final long TAKEOVER_NANOS = LeaseFetcher.TAKEOVER_BOUNDS * 1_000 * MS;
    private static final Action ACTION = LeaseFetcherTest.ACTION;

    private final Entry entry = new Entry(new UnsafeBuffer(new byte[EntryLayout.valueLength(Entry.KIND_LEASE, 4)]));
    private final AtomicLong now = new AtomicLong(3_600_000_000_000L);
    private final AtomicBoolean holderAlive = new AtomicBoolean(true);

    ProbeShortTest()
    {
        entry.publishGenerationVolatile(GENERATION);
    }

    @Test
    void aRoundTripInFlightIsOneACheckWouldWaitFor()
    {
        final LeaseWait refuse = leaseWait(false);
        final LeaseWait local = leaseWait(true);
        assertEquals(CheckResult.ADMITTED, refuse.probeShort(ACTION, entry, now.get()), "nothing in flight: asked");
        assertEquals(CheckResult.ADMITTED, refuse.probeShort(ACTION, null, now.get()), "no lease entry: asked");

        final long claim = LeaseRefill.claimRefill(entry, GENERATION, now.get(), TAKEOVER_NANOS,
            new RefillHolders(77, holder -> holderAlive.get()));
        assertEquals(77, LeaseRefill.holderOf(claim), "the premise: another process's fetch holds the word");
        now.addAndGet(10 * MS);
        assertEquals(FALLBACK_MS, refuse.probeShort(ACTION, entry, now.get()), "10 ms old: waited for");
        assertEquals(CheckResult.ADMITTED, local.probeShort(ACTION, entry, now.get()), "local admits either way");

        now.addAndGet(50 * MS);
        assertEquals(FALLBACK_MS, refuse.probeShort(ACTION, entry, now.get()), "60 ms old, its holder alive");
        holderAlive.set(false);
        assertEquals(CheckResult.ADMITTED, refuse.probeShort(ACTION, entry, now.get()),
            "60 ms old, its holder dead: a check takes the word over and leases");
        holderAlive.set(true);
        now.addAndGet(TAKEOVER_NANOS);
        assertEquals(CheckResult.ADMITTED, refuse.probeShort(ACTION, entry, now.get()),
            "past the takeover bound, its holder alive (frozen): a check takes the word over and leases");
        assertEquals(claim, LeaseWords.refillVolatile(entry), "a probe takes nothing over");
    }

    private LeaseWait leaseWait(final boolean local)
    {
        final LeaseSource source = new ConnectedSource();
        final LeaseFetcher fetcher = LeaseFetcherTest.fetcher(source, new Object(), now, TAKEOVER_NANOS,
            new RefillHolders(42, holder -> holder == 42 || holderAlive.get()));
        final int n = Action.values().length;
        final long[] limits = new long[n];
        final long[] leases = new long[n];
        final boolean[] locals = new boolean[n];
        limits[ACTION.ordinal()] = 100;
        leases[ACTION.ordinal()] = LeaseFetcherTest.LEASE;
        locals[ACTION.ordinal()] = local;
        return new LeaseWait(source, now::get, limits, leases, locals, FALLBACK_MS, new ClusterCounters(n), fetcher);
    }

    /** Connected; never asked (a probe does no network I/O). */
    private static final class ConnectedSource implements LeaseSource
    {
        @Override
        public CompletionStage<Grant> lease(final Action action, final String identifier, final long sequence,
            final long want)
        {
            return CompletableFuture.failedFuture(new AssertionError("a probe asked for a lease"));
        }

        @Override
        public CompletionStage<Grant> refund(final Action action, final String identifier, final long sequence,
            final long tokens)
        {
            return CompletableFuture.failedFuture(new AssertionError("a probe asked for a refund"));
        }

        @Override
        public boolean connected()
        {
            return true;
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
