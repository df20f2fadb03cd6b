package dev.floodgate;

import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Review (review2): a charge whose cluster part a later quota refused gave back to the lease every earlier quota's
 * cost the cluster had admitted, also one admitted by its fallback ({@code local}, Redis unavailable) or by the
 * unreachable rule, which spent nothing: the give-back put tokens no lease brought into the node's balance (the
 * charge's cost, 5 here: the whole cluster limit, "leased and unused" with nothing leased), which the node's next
 * checks spent, and its idle give-back refunded to the cluster's bucket, past the cluster limit. Also for a quota
 * whose node quota the policy switched off ({@code ClusterOnly}), whose cluster part is all it has.
 *
 * <p>PUBLISH's cluster quota falls back to the node's quota; SUBSCRIBE's refuses: without Redis every charge of both
 * is refused by SUBSCRIBE after PUBLISH's fallback admitted it.
 */
@Timeout(120)
class ChargeFallbackGiveBackTest
{
    private static final int CHARGES = 20;
    /** PUBLISH's part of a charge: its whole cluster limit. */
    private static final long COST = 5;

    @TempDir
    Path dir;

    private FloodgateConfig.Builder config(final LocalRedis redis, final long publishLimit)
    {
        return FloodgateConfig.builder().file(dir.resolve("f.map")).capacity(1_000)
            .limit(Action.PUBLISH, publishLimit, 60_000).limit(Action.SUBSCRIBE, 1_000, 60_000)
            .clusterRedisUri(redis.uri())
            .clusterLimit(Action.PUBLISH, 5, 3_600_000).clusterLease(Action.PUBLISH, 5)
            .clusterFallbackLocal(Action.PUBLISH, true)
            .clusterLimit(Action.SUBSCRIBE, 100, 3_600_000).clusterLease(Action.SUBSCRIBE, 10)
            .clusterFallbackLocal(Action.SUBSCRIBE, false);
    }

    @Test
    void aChargeRefusedDuringAnOutageGivesBackNoTokenItsFallbackAdmitted() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); Floodgate gate = Floodgate.open(config(redis, 1_000).build()))
        {
            assertEquals(0, refusedDuringAnOutage(redis, gate), "tokens unused in the node's leases");
        }
    }

    @Test
    void soDoesOneWhoseNodeQuotaIsOff() throws Exception
    {
        try (LocalRedis redis = LocalRedis.start(); Floodgate gate = Floodgate.open(config(redis, 1_000).build()))
        {
            gate.reconfigure(FloodgateConfig.builder().file(dir.resolve("f.map")).capacity(1_000)
                .limit(Action.PUBLISH, 0, 60_000).limit(Action.SUBSCRIBE, 1_000, 60_000).build());
            assertEquals(0, gate.policy().rule(Action.PUBLISH).limit(), "the premise: the node's quota is off");
            assertEquals(0, refusedDuringAnOutage(redis, gate), "tokens unused in the node's leases");
        }
    }

    /** @return the node's tokens leased and unused after {@link #CHARGES} charges refused without Redis. */
    private static long refusedDuringAnOutage(final LocalRedis redis, final Floodgate gate) throws Exception
    {
        redis.kill9();
        final List<Charge> charge = List.of(Charge.bucket("alice", Action.PUBLISH, COST),
            Charge.bucket("alice", Action.SUBSCRIBE, 1));
        for (int i = 0; i < CHARGES; i++)
        {
            assertNotEquals(Floodgate.ADMITTED, gate.charge(charge), "the premise: SUBSCRIBE refuses without Redis");
        }
        final ClusterStats.Node cluster = gate.stats().cluster();
        assertEquals(0, cluster.tokensLeased(), "the premise: nothing was ever leased: " + cluster);
        return cluster.tokensUnused();
    }
}
