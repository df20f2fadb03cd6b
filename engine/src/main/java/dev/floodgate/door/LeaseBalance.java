package dev.floodgate.door;

import dev.floodgate.store.Entry;
import dev.floodgate.store.LeaseLines;
import dev.floodgate.store.LeaseWords;
import dev.floodgate.store.Resolved;

/**
 * The node's side of a cluster quota (issue 12): the tokens leased from the cluster's bucket and not yet spent,
 * held in a lease entry of the shared table so every JVM of the node spends the same balance. Every write loads
 * its word, then passes the entry's generation test, then compares-and-sets, as {@link Entry}'s protocol
 * requires: a write never lands on a reclaimed entry.
 *
 * <p><b>Spending</b> is all or nothing: {@link #spend} takes {@code cost} tokens or none, from the CPU's balance
 * line when the lease is large enough, so CPUs spending one key do not share a cache line. A spend given back
 * ({@link #giveBack}) returns its tokens, so a check whose other quota refused leaves the balance as it found it.
 *
 * <p>Giving back ({@link LeaseRefund}) takes the whole balance, {@link #takeAll}; the refill word, the sequence
 * and the cluster's empty mark are {@link LeaseRefill}'s.
 *
 * <p>Stateless; thread-safe across the node's threads and processes.
 */
final class LeaseBalance
{
    /** {@link #spend}: the balance holds fewer than the cost; nothing taken. */
    static final long SHORT = -1;
    /** {@link #spend}: the entry changed under the check (reclaimed); nothing taken, resolve it again. */
    static final long GONE = -2;
    /** {@link #spend}: spent from the CPU's balance line; the central balance did not move, no refill test is due. */
    static final long SPENT_ON_LINE = Long.MAX_VALUE;
    /** A line takes a quarter of a lease over the lines from the central balance at a time: see {@link #spend}. */
    private static final long CHUNKS_PER_LEASE_AND_LINE = 4;
    /** Lines are used when a chunk is at least this many tokens; below, a line would save no compare-and-set. */
    private static final long MIN_CHUNK = 2;

    private LeaseBalance()
    {
    }

    /**
     * Spends {@code cost} tokens, all or nothing.
     *
     * <p><b>Where from.</b> Grants land in the central balance. When the lease is large enough for the file's
     * balance lines ({@code lease / (4 x lines)} at least 2 tokens, the chunk), a spend takes from its CPU's line
     * (the thread's probe picks it, as the window door picks its shard): two CPUs spending one key then never write
     * one cache line, where one balance word made every spend of every CPU bounce it (the clustered window check
     * cost 4x the node-only one with two threads). A line that cannot cover the cost spends what it holds and takes the
     * rest and a chunk from the central balance by one compare-and-set, keeping the chunk; a central balance that
     * cannot cover it either gathers from every line and the central balance (the last tokens of a lease, wherever
     * they sit), as does a spend whose own lease is too small for lines while a sibling JVM's filled them.
     * Tokens are the node's wherever they sit: each moves by one generation-checked compare-and-set, so none is
     * spent twice; a process killed between taking a chunk and adding it to its line loses the chunk
     * (under-admission). While a spend carries tokens between two words, another spend may find the balance short
     * although the sum covers it: only when both the CPU's line and the central balance are short, i.e. at a
     * lease's end, where the check then waits for the refill as it would.
     *
     * @param slot       a lease entry's slot: its entry, the generation it was resolved at, its lines by address and
     *                   its {@linkplain QuotaSlot#chunk chunk} (of this JVM's lease size).
     * @param cost       tokens, at least 1.
     * @return {@link #SPENT_ON_LINE}; or the central balance left after a chunk was taken from it or the cost
     * gathered (0 or more: the refill test's figure); {@link #SHORT} or {@link #GONE}.
     */
    static long spend(final QuotaSlot slot, final long cost)
    {
        final long chunk = slot.chunk;
        if (chunk == 0)
        {
            return spendCentral(slot.entry, slot.generation, cost);
        }
        // the slot's entry is read only on the way to a refill: read up front, it was loaded on every spend
        final LeaseLines lines = slot.lines;
        final long generation = slot.generation;
        int probe = ShardProbe.probe();
        while (true)
        {
            final long taken = lines.take(probe, generation, cost);
            if (taken == LeaseLines.TAKEN)
            {
                return SPENT_ON_LINE;
            }
            if (taken == LeaseLines.GONE)
            {
                return GONE;
            }
            if (taken != LeaseLines.RACE)
            {
                return refillLine(slot.entry, generation, cost, chunk, lines.lineOf(probe), taken);
            }
            probe = ShardProbe.advance(probe); // another thread on this line: spread, as the window door does
        }
    }

    /**
     * {@link #spend(QuotaSlot, long)} over an entry of no slot's (allocates a slot and its {@link LeaseLines}).
     *
     * @param lease the action's lease size.
     */
    static long spend(final Entry entry, final long generation, final long cost, final long lease)
    {
        return spend(new QuotaSlot("", 0, ClusterGate.KIND, new Resolved(entry, generation, 0, 0, 0), lease), cost);
    }

    /**
     * @param lease the action's lease size.
     * @param lines the entry's balance lines.
     * @return the tokens a line takes from the central balance at a time, {@code lease / (4 x lines)}, when that is
     * at least 2; else 0: the spend keeps to the central balance.
     */
    static long chunk(final long lease, final int lines)
    {
        if (lines <= 0)
        {
            return 0;
        }
        final long chunk = lease / (CHUNKS_PER_LEASE_AND_LINE * lines);
        return chunk >= MIN_CHUNK ? chunk : 0;
    }

    private static long spendCentral(final Entry entry, final long generation, final long cost)
    {
        while (true)
        {
            final long balance = LeaseWords.centralVolatile(entry);
            if (!entry.isCurrentAcquire(generation))
            {
                return GONE;
            }
            if (balance < cost)
            {
                // a sibling JVM configured with a larger lease may have moved tokens onto the lines
                return LeaseWords.lineCount(entry) == 0 ? SHORT : gather(entry, generation, cost);
            }
            if (LeaseWords.casCentral(entry, balance, balance - cost))
            {
                return balance - cost;
            }
        }
    }

    /**
     * The CPU's line holds {@code onLine}, less than the cost: the line's tokens pay what they can, the central
     * balance the rest and a chunk, which stays on the line. So a line holds at most a chunk after a refill (at
     * most a chunk plus {@code cost - 1} tokens at any time), and the lines together about a quarter of a lease.
     */
    private static long refillLine(final Entry entry, final long generation, final long cost, final long chunk,
        final int line, final long onLine)
    {
        while (true)
        {
            final long central = LeaseWords.centralVolatile(entry);
            if (!entry.isCurrentAcquire(generation))
            {
                return GONE;
            }
            final long need = cost - onLine;
            if (central < need)
            {
                return gather(entry, generation, cost);
            }
            final long take = Math.min(central, need + chunk);
            if (LeaseWords.casCentral(entry, central, central - take))
            {
                final int settled = settleLine(entry, generation, line, take - cost);
                if (settled == SETTLED)
                {
                    return central - take;
                }
                if (settled == GONE)
                {
                    return GONE; // the take was the reclaimed entry's
                }
                // the line was spent below what the take needed meanwhile: the take goes back, the cost is gathered
                giveBack(entry, generation, take);
                return gather(entry, generation, cost);
            }
        }
    }

    private static final int SETTLED = 1;
    private static final int SPENT_MEANWHILE = 0;

    /**
     * Adds {@code delta} (the take less the cost, negative when the line's own tokens pay part of it) to the line.
     *
     * @return {@link #SETTLED}; {@link #SPENT_MEANWHILE} when the line holds too little now (nothing written); or
     * {@link #GONE} as an int when the entry changed (nothing written).
     */
    private static int settleLine(final Entry entry, final long generation, final int line, final long delta)
    {
        while (true)
        {
            final long balance = LeaseWords.lineVolatile(entry, line);
            if (!entry.isCurrentAcquire(generation))
            {
                return (int)GONE;
            }
            if (balance + delta < 0)
            {
                return SPENT_MEANWHILE;
            }
            if (delta == 0 || LeaseWords.casLine(entry, line, balance, balance + delta))
            {
                return SETTLED;
            }
        }
    }

    /** The central balance cannot cover the cost: take it from wherever tokens sit, or take nothing. */
    private static long gather(final Entry entry, final long generation, final long cost)
    {
        long gathered = 0;
        for (int word = -1, lines = LeaseWords.lineCount(entry); word < lines && gathered < cost; word++)
        {
            while (true)
            {
                final long balance = word < 0 ? LeaseWords.centralVolatile(entry) :
                    LeaseWords.lineVolatile(entry, word);
                if (!entry.isCurrentAcquire(generation))
                {
                    return GONE; // what was gathered was the reclaimed entry's
                }
                if (balance <= 0)
                {
                    break;
                }
                final long take = Math.min(balance, cost - gathered);
                if (word < 0 ? LeaseWords.casCentral(entry, balance, balance - take) :
                    LeaseWords.casLine(entry, word, balance, balance - take))
                {
                    gathered += take;
                    break;
                }
            }
        }
        if (gathered < cost)
        {
            giveBack(entry, generation, gathered); // to the central balance: a token is the node's wherever it sits
            return SHORT;
        }
        return LeaseWords.centralVolatile(entry); // the refill test's figure (a grant may have landed meanwhile)
    }

    /**
     * Returns the tokens of a spend (or adds a grant) to the central balance.
     *
     * @return false when the entry changed first (nothing written: the tokens are lost, which under-admits).
     */
    static boolean giveBack(final Entry entry, final long generation, final long tokens)
    {
        while (true)
        {
            final long balance = LeaseWords.centralVolatile(entry);
            if (!entry.isCurrentAcquire(generation))
            {
                return false;
            }
            if (tokens == 0 || LeaseWords.casCentral(entry, balance, balance + tokens))
            {
                return true;
            }
        }
    }

    /**
     * Takes the whole balance, the central one and every line's, for a give-back to the cluster: each by one
     * generation-checked compare-and-set to 0, so a token is either spent by a check or given back, never both.
     * Tokens a spend carries between two words at that moment stay with the node. Call it holding the refill word.
     *
     * @return the tokens taken (0 when the balance was empty); when the entry changed part way, what was taken
     * before (nothing after), which the caller's next generation-checked step then fails to send: lost with the
     * entry, as its balance would be.
     */
    static long takeAll(final Entry entry, final long generation)
    {
        long taken = 0;
        for (int word = -1, lines = LeaseWords.lineCount(entry); word < lines; word++)
        {
            while (true)
            {
                final long balance = word < 0 ? LeaseWords.centralVolatile(entry) :
                    LeaseWords.lineVolatile(entry, word);
                if (!entry.isCurrentAcquire(generation))
                {
                    return taken; // taken while the entry was current: lost with it, as its balance would be
                }
                if (balance <= 0 || (word < 0 ? LeaseWords.casCentral(entry, balance, 0) :
                    LeaseWords.casLine(entry, word, balance, 0)))
                {
                    taken += Math.max(0, balance);
                    break;
                }
            }
        }
        return taken;
    }

}
