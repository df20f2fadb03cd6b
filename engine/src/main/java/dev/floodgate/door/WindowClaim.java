package dev.floodgate.door;

import dev.floodgate.store.Entry;
import dev.floodgate.store.PolicyRegion;
import dev.floodgate.store.ShardWords;

/**
 * The window door's claim on one entry: {@code cost} tokens across the shards, all or nothing, then validated
 * against the policy generation the caller's rule was read at.
 *
 * <p>Shards are claimed in turn from the thread's home shard, each compare-and-set taking what its shard can
 * give ({@link ShardedWindow#tryClaim}, generation-checked). When the sweep ends short every partial claim is
 * given back ({@link ShardedWindow#giveBack}: same window only, never below zero, generation-checked).
 *
 * <p><b>Post-validation.</b> After the claim the policy generation is loaded again (acquire). Unchanged, the
 * rule was the file's policy at every compare-and-set of the claim, so the caps and the window number were
 * right when it landed: the claim stands. Changed, the claim may have applied old caps to a new regime's
 * window (a snapshot taken before a slow resolve or a pause): it is given back and the caller checks again
 * under the new policy. So a check is only ever admitted under the policy current when it claimed, whatever
 * the timing; the same holds for a refusal. Meanwhile a concurrent check may be refused a token a claim will
 * give back: that under-admits for an instant, never over-admits. Cost on the warm path: one acquire load of
 * the read-mostly policy line, no allocation (a one-token claim keeps its receipt in locals, and hands it to a
 * caller that may give it back as a {@linkplain #claimOne ticket}, a long, rather than in a receipts array).
 */
final class WindowClaim
{
    /** All tokens claimed, under the current policy. */
    static final int ADMITTED = 0;
    /** Not enough tokens in the window, under the current policy: nothing kept. */
    static final int REFUSED = 1;
    /** The entry's generation changed: nothing kept; resolve the entry again. */
    static final int STALE_ENTRY = 2;
    /** The policy changed since the rule was read: nothing kept; check again under the new policy. */
    static final int STALE_POLICY = 3;

    private WindowClaim()
    {
    }

    /**
     * @param entry            the entry.
     * @param generation       the entry's generation when resolved.
     * @param policy           the file's policy region.
     * @param policyGeneration the generation {@code rule} was read at.
     * @param rule             the action's rule.
     * @param windowNumber     the window number at the caller's clock, under {@code rule}.
     * @param cost             tokens, 1 to the regime's limit.
     * @param receipts         null when {@code cost == 1}; else {@link #receipts}: one slot per shard, all
     *                         zero, and a last slot this claim fills with {@code windowNumber}.
     * @param keep             true: an admitted claim leaves its receipts filled (for {@link #giveBack});
     *                         false: the receipts are left all zero.
     * @return {@link #ADMITTED}, {@link #REFUSED}, {@link #STALE_ENTRY} or {@link #STALE_POLICY}.
     */
    static int claim(final Entry entry, final long generation, final PolicyRegion policy,
        final long policyGeneration, final ActionRule rule, final long windowNumber, final long cost,
        final long[] receipts, final boolean keep)
    {
        final long outcome = claim(entry, generation, policy, policyGeneration, rule, windowNumber, cost, receipts,
            keep, false);
        return outcome >= 0 ? ADMITTED : (int)-outcome;
    }

    /**
     * A one-token claim whose receipt the caller keeps for a give-back, as a long instead of in a receipts array:
     * a clustered check gives its claim back when the cluster refuses, and a thread-local array, fetched, filled and
     * cleared on every check, was most of what a clustered window check cost over a node-only one (NOTES.md,
     * "Measured: the warm check with a cluster quota", run 9).
     *
     * @return a ticket (0 or more) for {@link #giveBackOne} when admitted; else {@code -}{@link #REFUSED},
     * {@code -}{@link #STALE_ENTRY} or {@code -}{@link #STALE_POLICY}.
     */
    static long claimOne(final Entry entry, final long generation, final PolicyRegion policy,
        final long policyGeneration, final ActionRule rule, final long windowNumber)
    {
        return claim(entry, generation, policy, policyGeneration, rule, windowNumber, 1, null, true, true);
    }

    /**
     * Gives back a claim {@link #claimOne} admitted.
     *
     * @param ticket       what {@link #claimOne} returned.
     * @param windowNumber the window number passed to {@link #claimOne}.
     */
    static void giveBackOne(final Entry entry, final long generation, final long ticket, final long windowNumber)
    {
        ShardedWindow.giveBack(entry, (int)(ticket >>> ShardedWindow.TAG_BITS),
            ShardedWindow.word(ticket & TICKET_TAG_MASK, 1), windowNumber, generation);
    }

    private static final long TICKET_TAG_MASK = (1L << ShardedWindow.TAG_BITS) - 1;

    /**
     * @param ticket true: a one-token claim ({@code receipts} null) answers admitted with its ticket,
     *               {@code shard << 22 | the window tag it was claimed in}; false: with 0.
     * @return 0 or a ticket when admitted, else the negated outcome.
     */
    private static long claim(final Entry entry, final long generation, final PolicyRegion policy,
        final long policyGeneration, final ActionRule rule, final long windowNumber, final long cost,
        final long[] receipts, final boolean keep, final boolean ticket)
    {
        final int sweep = rule.sweepShards;
        if (receipts != null)
        {
            receipts[receipts.length - 1] = windowNumber; // where the receipts' window numbers start
        }
        int probe = ShardProbe.probe();
        final int home = ShardProbe.shard(probe, sweep);
        long number = windowNumber;
        long remaining = cost;
        long single = 0;
        int singleShard = -1;
        boolean stale = false;
        for (int k = 0; k < sweep && remaining > 0; k++)
        {
            final int shard = home + k < sweep ? home + k : home + k - sweep;
            long receipt;
            while ((receipt = ShardedWindow.tryClaim(entry, remaining, number, windowNumber, rule.previous,
                rule.current, shard, generation)) == ShardedWindow.RACE)
            {
                probe = ShardProbe.advance(probe); // lost a race: spread to another home next time
            }
            if (receipt == ShardedWindow.STALE)
            {
                stale = true;
                break;
            }
            final long take = ShardedWindow.used(receipt);
            // a shard already in a newer window (a clock read a little later) makes the rest claim in it too,
            // as that shard does: a late check counts in one window, not in whichever each shard last saw (one
            // its receipts can name from windowNumber: less than 2^22 past it, as tryClaim's claims are)
            number = newer(number, take > 0 ? ShardedWindow.numberFrom(receipt, number) : seen(entry, shard),
                windowNumber, rule);
            if (take > 0)
            {
                remaining -= take;
                if (receipts == null)
                {
                    single = receipt;
                    singleShard = shard;
                }
                else
                {
                    receipts[shard] = receipt;
                }
            }
        }
        final boolean current = !stale && policy.generationAcquire() == policyGeneration;
        if (remaining == 0 && current)
        {
            if (!keep)
            {
                clear(receipts, sweep);
            }
            return ticket ? (long)singleShard << ShardedWindow.TAG_BITS | single >>> ShardedWindow.USED_BITS : 0;
        }
        if (receipts == null)
        {
            if (singleShard >= 0)
            {
                ShardedWindow.giveBack(entry, singleShard, single, windowNumber, generation);
            }
        }
        else
        {
            giveBack(entry, generation, receipts, sweep);
        }
        return -(stale ? STALE_ENTRY : current ? REFUSED : STALE_POLICY);
    }

    /**
     * Gives back a claim {@link #claim} admitted (a multi-quota charge refused by a later quota) and clears the
     * receipts.
     *
     * @param entry      the entry.
     * @param generation the entry's generation the claim was made under.
     * @param receipts   {@link #receipts}, as filled by {@link #claim} with {@code keep}.
     * @param shards     how many slots to give back and clear.
     */
    static void giveBack(final Entry entry, final long generation, final long[] receipts, final int shards)
    {
        for (int shard = 0; shard < shards; shard++)
        {
            if (receipts[shard] != 0)
            {
                ShardedWindow.giveBack(entry, shard, receipts[shard], receipts[receipts.length - 1], generation);
                receipts[shard] = 0;
            }
        }
    }

    /**
     * @param shards the file's shard count.
     * @return an array for {@link #claim}'s receipts: one slot per shard and the window number they start from.
     */
    static long[] receipts(final int shards)
    {
        return new long[shards + 1];
    }

    /** @return the window number a shard holds a count in, or {@link Long#MIN_VALUE} when it holds none. */
    private static long seen(final Entry entry, final int shard)
    {
        final long word = ShardWords.wordVolatile(entry, shard);
        return ShardedWindow.used(word) == 0 ? Long.MIN_VALUE :
            ShardedWindow.number(word, ShardWords.newestVolatile(entry, shard));
    }

    private static long newer(final long number, final long seen, final long from, final ActionRule rule)
    {
        return seen > number && !ShardedWindow.refuses(seen, from, rule.previous, rule.current) ? seen : number;
    }

    private static void clear(final long[] receipts, final int shards)
    {
        if (receipts != null)
        {
            java.util.Arrays.fill(receipts, 0, shards, 0);
        }
    }
}
