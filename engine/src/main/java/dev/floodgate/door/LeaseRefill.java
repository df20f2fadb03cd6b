package dev.floodgate.door;

import dev.floodgate.store.Entry;
import dev.floodgate.store.LeaseWords;

/**
 * The words of a lease entry (issue 12) that let one JVM of the node at a time refill its balance
 * ({@link LeaseBalance}) from the cluster and give it back: the refill word, the sequence number and the cluster's
 * empty mark. Every write loads its word, then passes the entry's generation test, then compares-and-sets, as
 * {@link Entry}'s protocol requires: a write never lands on a reclaimed entry.
 *
 * <p><b>Refilling.</b> The JVM that wins the refill word ({@link #claimRefill}) asks Redis for a lease with the
 * entry's sequence number, then {@link #commitGrant commits} the answer: the sequence moves on by one and the
 * grant is added, in that order. The server applies a (bucket, node, sequence) once and replays its answer to a
 * retry, so a fetcher that took over from one killed or stalled mid-fetch sends the same number and gets the same
 * grant; only the first commit of a number adds it. A JVM killed between the two steps loses that grant: the
 * node then admits less than the cluster leased it, never more. The refill word holds {@code since ms << 24 |
 * holder} (the fetcher's registry slot and token bits, {@link RefillHolders}): a word whose holder the kernel says
 * is dead is taken over once it is older than a check's wait; one older than the takeover timeout belongs to a
 * fetcher presumed dead (or frozen) in any case.
 *
 * <p><b>Giving back</b> ({@link LeaseRefund}) holds the refill word too: {@link LeaseBalance#takeAll} empties
 * the balance, and {@link #reserveSequence} moves the sequence on before the refund is sent with the old number,
 * so no later lease reuses it.
 *
 * <p>Stateless; thread-safe across the node's threads and processes.
 */
final class LeaseRefill
{
    /** The refill word's low bits: who fetches. */
    static final int HOLDER_BITS = 24;
    private static final long HOLDER_MASK = (1L << HOLDER_BITS) - 1;
    /**
     * A refill word younger than this is not asked about (a live fetch ends in well under it, and the question is a
     * system call): a check's own wait.
     */
    private static final long PROBE_AFTER_MS = LeaseWait.CHECK_WAIT_NANOS / 1_000_000L;
    private static final long MS_MASK = (1L << 40) - 1;
    /** Sequence numbers a millisecond of wall clock is worth: a lease entry made again starts past its old ones. */
    private static final long SEQUENCES_PER_MS = 1_000L;

    private LeaseRefill()
    {
    }

    /**
     * Moves the sequence from {@code sequence} on by one before a refund is sent with it: a refund is never
     * retried by another JVM, so its number is spent before the request leaves, and a later lease can never
     * reuse it (a JVM killed after this step loses the refund's tokens: under-admission). The number may be a
     * lease's that timed out: no commit can take that lease's grant once the sequence moved, and the server gives
     * it back with the refund (a refund under a lease's number gives the lease up).
     *
     * @return false when the sequence had moved or the entry changed: send nothing.
     */
    static boolean reserveSequence(final Entry entry, final long generation, final long sequence)
    {
        return advance(entry, generation, sequence, sequence + 1);
    }

    /**
     * Takes the refill word, when no fetch is in flight, or the one in flight started at least
     * {@code takeoverNanos} ago, or its holder is dead and it started at least a check's wait ago.
     *
     * @param nowNanos monotonic ns, the same clock every JVM of the host reads.
     * @param holders  this process's name, and who is alive.
     * @return the claim, to {@link #releaseRefill} after the commit; 0 when another fetch holds the word, or the
     * entry changed.
     */
    static long claimRefill(final Entry entry, final long generation, final long nowNanos, final long takeoverNanos,
        final RefillHolders holders)
    {
        final long word = LeaseWords.refillVolatile(entry);
        if (!entry.isCurrentAcquire(generation))
        {
            return 0;
        }
        final long nowMs = nowNanos / 1_000_000L;
        if (word != 0 && heldNow(word, nowMs, takeoverNanos, holders))
        {
            return 0;
        }
        final long claim = (nowMs & MS_MASK) << HOLDER_BITS | holders.self();
        final long nonZero = claim == 0 ? 1 : claim;
        // the generation again: the liveness probe above is a call (a kernel lock test), and only arithmetic may
        // stand between the test and the compare-and-set (found by review: a fetcher stalled in the probe while
        // the entry was reaped and reused took the new key's live refill word)
        return nonZero != word && entry.isCurrentAcquire(generation) && LeaseWords.casRefill(entry, word, nonZero) ?
            nonZero : 0;
    }

    /**
     * @param word     a refill word other than 0.
     * @param nowMs    monotonic ms, the same clock every JVM of the host reads.
     * @param holders  who is alive: asked only about a word at least a check's wait old (a system call).
     * @return whether a claim now would leave the word to its holder ({@link #claimRefill}): it is younger than the
     * takeover bound, and younger than a check's wait or its holder alive. A round trip in flight, as far as the node
     * can tell without asking the server.
     */
    static boolean heldNow(final long word, final long nowMs, final long takeoverNanos, final RefillHolders holders)
    {
        final long masked = nowMs - sinceMs(word) & MS_MASK;
        // a word claimed after this caller read its clock is younger than its reading: age 0, not 2^40 ms
        // (found by review: the live fetch was taken over at once, and the two answers could lose a grant)
        final long ageMs = masked > MS_MASK >>> 1 ? 0 : masked;
        return ageMs < takeoverNanos / 1_000_000L && (ageMs < PROBE_AFTER_MS || holders.alive().test(holderOf(word)));
    }

    /** Clears the refill word if it still holds {@code claim}: a fetcher taken over from clears nothing. */
    static void releaseRefill(final Entry entry, final long generation, final long claim)
    {
        final long word = LeaseWords.refillVolatile(entry);
        if (word == claim && entry.isCurrentAcquire(generation))
        {
            LeaseWords.casRefill(entry, claim, 0);
        }
    }

    /** @return the sequence number a refill sends now. */
    static long sequence(final Entry entry)
    {
        return LeaseWords.sequenceVolatile(entry);
    }

    /**
     * Commits the answer to the lease request {@code sequence}: moves the sequence on, then adds the grant and
     * touches the entry (the janitor's idle clock).
     *
     * @return true when this call committed it; false when another fetcher committed that sequence first (its
     * grant, the same one replayed, is already in) or the entry changed.
     */
    static boolean commitGrant(final Entry entry, final long generation, final long sequence, final long tokens,
        final long nowNanos)
    {
        if (!advance(entry, generation, sequence, sequence + 1))
        {
            return false;
        }
        if (tokens > 0)
        {
            LeaseBalance.giveBack(entry, generation, tokens);
        }
        entry.touchIfCurrent(generation, entry.touchedVolatile(), nowNanos);
        return true;
    }

    /**
     * After a {@code STALE} answer (the server saw a later sequence of this node for the bucket, as after the
     * entry was reclaimed and made again): moves the sequence past both, to the wall clock's floor.
     */
    static void skipStale(final Entry entry, final long generation, final long sequence, final long wallMs)
    {
        advance(entry, generation, sequence, Math.max(sequence + 1, firstSequence(wallMs)));
    }

    /** @return a new lease entry's first sequence number: past any an earlier entry of the bucket has used. */
    static long firstSequence(final long wallMs)
    {
        return wallMs * SEQUENCES_PER_MS;
    }

    /**
     * Records that the cluster's bucket will not hold what a lease is worth asking for before {@code untilMs}:
     * until then no JVM of the node asks, and a check the balance cannot cover is refused at once.
     */
    static void markEmpty(final Entry entry, final long generation, final long untilMs)
    {
        final long current = LeaseWords.emptyUntilVolatile(entry);
        if (entry.isCurrentAcquire(generation))
        {
            LeaseWords.casEmptyUntil(entry, current, untilMs); // losing to another fetcher's mark is as good
        }
    }

    /** @return the ms left before the cluster's bucket is worth asking again, 0 when it is now. */
    static long emptyForMs(final Entry entry, final long nowMs)
    {
        return Math.max(0, LeaseWords.emptyUntilVolatile(entry) - nowMs);
    }

    /** @return the monotonic ms the refill word's fetch started at. */
    static long sinceMs(final long word)
    {
        return word >>> HOLDER_BITS;
    }

    /** @return the refill word's fetcher, as {@link RefillHolders} names it. */
    static long holderOf(final long word)
    {
        return word & HOLDER_MASK;
    }

    private static boolean advance(final Entry entry, final long generation, final long expected, final long next)
    {
        final long current = LeaseWords.sequenceVolatile(entry);
        return current == expected && entry.isCurrentAcquire(generation) &&
            LeaseWords.casSequence(entry, expected, next);
    }
}
