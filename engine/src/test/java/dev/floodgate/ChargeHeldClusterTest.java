package dev.floodgate;

import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Review (review-bucket): a charge whose bucket claim a conversion carried into new units (its give-back found a
 * new generation) counts that claim on its next attempt without claiming again ({@code Charges}' held claims), and
 * holds no slot for it; the cluster's part then skipped every quota without a slot, so a held quota of an action
 * with a cluster quota was admitted without spending its cost from the cluster's lease: 15 admitted against a
 * cluster limit of 10.
 *
 * <p>Deterministic: as {@code ChargeGiveBackTest}'s conversion case, a ticker runs the publish and a converting
 * check on another thread inside the charge's third clock read (after the bucket quota's claim).
 */
@Timeout(120)
class ChargeHeldClusterTest
{
    private static final long MS = 1_000_000L;
    private static final long START_MS = 7_200_000;
    private static final long CLUSTER_LIMIT = 10;

    @TempDir
    Path dir;

    private FloodgateConfig config(final LocalRedis redis, final ChargeGiveBackTest.CountingTicker ticker,
        final long nodeLimit)
    {
        return FloodgateConfig.builder().file(dir.resolve("h.map")).capacity(1_000).ticker(ticker)
            .limit(Action.PUBLISH, nodeLimit, 1_000).limit(Action.SUBSCRIBE, 100, 60_000)
            .clusterRedisUri(redis.uri())
            .clusterLimit(Action.PUBLISH, CLUSTER_LIMIT, 3_600_000).clusterLease(Action.PUBLISH, CLUSTER_LIMIT)
            .clusterFallbackLocal(Action.PUBLISH, false).build();
    }

    @Test
    void shouldSpendAHeldBucketQuotasCostFromTheClusterLease() throws Exception
    {
        final ManualTicker time = new ManualTicker(START_MS * MS);
        final ChargeGiveBackTest.CountingTicker ticker = new ChargeGiveBackTest.CountingTicker(time);
        try (LocalRedis redis = LocalRedis.start(); Floodgate gate = Floodgate.open(config(redis, ticker, 10)))
        {
            long admitted = 0;
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("p", Action.PUBLISH)); // leases all 10, spends 1
            admitted++;
            time.advanceMs(1_000); // the node's bucket is full again
            final AtomicLong between = new AtomicLong();
            // reads of the charge: 1 the bucket quota's now, 2 its claim, 3 the window quota's now
            ticker.onRead(3, () ->
            {
                gate.reconfigure(config(redis, ticker, 20)); // the node bucket's units change: 20 per second
                // converts the entry
                between.set(HookedTicker.onOtherThread(() -> gate.checkLimit("p", Action.PUBLISH)));
            });
            final long charge = gate.charge(List.of(Charge.bucket("p", Action.PUBLISH, 5),
                Charge.window("p", Action.SUBSCRIBE, 1)));
            assertTrue(!ticker.armed(), "the action ran inside the charge");
            assertEquals(Floodgate.ADMITTED, between.get());
            admitted++;
            if (charge == Floodgate.ADMITTED)
            {
                admitted += 5;
            }
            // the node's bucket has 20 - 1 - 5 = 14 left: only the cluster can refuse from here
            for (int i = 0; i < 20 && gate.checkLimit("p", Action.PUBLISH) == Floodgate.ADMITTED; i++)
            {
                admitted++;
            }
            assertTrue(admitted <= CLUSTER_LIMIT, "admitted " + admitted + " against a cluster limit of " +
                CLUSTER_LIMIT + " (the charge: " + charge + ")");
        }
    }
}
