package dev.floodgate.cluster;

import dev.floodgate.Action;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A lease whose call ended unavailable after Redis applied it, then given up by the node's idle give-back refunding
 * under its seq before any retry (the script puts its grant back with the refund), stays among
 * {@link LeaseCounters}' unanswered requests: no answer to it comes any more. Its figures, with the answers the script
 * gives in that sequence ({@code LeaseBucketTest}, {@code ClusterUnansweredLeaseGiveBackTest} against a real
 * server): the grant that never reached the node is neither leased nor refunded, the refund counts its own tokens, so
 * leased less refunded is what the node spent; the lost slot changes no later count.
 */
class GivenUpLeaseCountTest
{
    private static final LeaseKey KEY = LeaseKey.of(Action.PUBLISH, "bob");

    @Test
    void aLeaseGivenUpUnansweredCountsNeitherLeasedNorRefundedAndLeavesLaterCountsRight()
    {
        final LeaseCounters counters = new LeaseCounters();
        counters.lease(KEY, "node", 7, new Lease(Lease.Outcome.APPLIED, 6, 0, 1, 6)); // 6 leased, 4 of them spent
        counters.lease(KEY, "node", 8, Lease.unavailable()); // the refill: Redis applies it after the bound
        // the idle give-back moves the seq to 9 and refunds the 2 left under 8: the script puts the refill's 6 back
        // too, and answers with the refund's own 2
        counters.refund(new Lease(Lease.Outcome.APPLIED, 2, 0, 2, 2));

        assertEquals(6, counters.tokensLeased(), "the given-up grant never reached the node: not leased");
        assertEquals(2, counters.tokensRefunded(), "the refund's own tokens");
        assertEquals(4, counters.tokensLeased() - counters.tokensRefunded(), "what the node spent");
        assertEquals(1, counters.unavailable(), "the refill's call, once");

        counters.lease(KEY, "node", 9, new Lease(Lease.Outcome.APPLIED, 6, 0, 3, 6));
        counters.lease(KEY, "node", 8, new Lease(Lease.Outcome.STALE, 0, 0, 4, 6)); // a late lease under 8 is stale
        counters.lease(KEY, "node", 10, Lease.unavailable());
        counters.lease(KEY, "node", 10, new Lease(Lease.Outcome.REPLAYED, 6, 0, 5, 6)); // recovered by its retry
        assertEquals(18, counters.tokensLeased(), "later leases counted as ever, a recovered one included");
        assertEquals(2, counters.unavailable());
    }
}
