package dev.floodgate;

import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A {@code checkLimit} whose bucket entry a conversion swaps under its first claim (the entry's generation moved
 * between the claim's load of the TAT word and its generation test) resolves the entry again and claims once in
 * the new units: the path from a check's small warm claim to the claim with retries ({@code BucketDoor}), for an
 * action without a cluster quota and for one with one (where the cluster's part follows the second claim).
 *
 * <p>Deterministic: inside the check's clock read of its first claim, the policy changes the node's limit from 10 to
 * 20 per second and a check on another thread converts the entry; the clock stands still, so every token is counted:
 * the node admits exactly its new limit in all, the clustered action exactly its cluster limit.
 */
@Timeout(120)
class BucketClaimSwapTest
{
    private static final long MS = 1_000_000L;
    private static final long START_MS = 7_200_000;
    private static final long CLUSTER_LIMIT = 10;

    @TempDir
    Path dir;

    private FloodgateConfig config(final Ticker ticker, final long nodeLimit, final LocalRedis redis)
    {
        final FloodgateConfig.Builder builder = FloodgateConfig.builder().file(dir.resolve("s.map")).capacity(1_000)
            .ticker(ticker).limit(Action.PUBLISH, nodeLimit, 1_000);
        return redis == null ? builder.build() : builder.clusterRedisUri(redis.uri())
            .clusterLimit(Action.PUBLISH, CLUSTER_LIMIT, 3_600_000).clusterLease(Action.PUBLISH, CLUSTER_LIMIT)
            .clusterFallbackLocal(Action.PUBLISH, false).build();
    }

    @Test
    void aNodeOnlyCheckSwappedUnderItsClaimClaimsOnceInTheNewUnits() throws Exception
    {
        final HookedTicker ticker = new HookedTicker(new ManualTicker(START_MS * MS));
        try (Floodgate gate = Floodgate.open(config(ticker, 10, null)))
        {
            assertEquals(20, admittedAfterASwap(gate, ticker, "tryAcquire", () -> config(ticker, 20, null)),
                "the node's new limit, the token spent before the conversion carried over");
        }
    }

    @Test
    void aClusteredCheckSwappedUnderItsClaimClaimsOnceAndSpendsTheClusterOnce() throws Exception
    {
        final HookedTicker ticker = new HookedTicker(new ManualTicker(START_MS * MS));
        try (LocalRedis redis = LocalRedis.start(); Floodgate gate = Floodgate.open(config(ticker, 10, redis)))
        {
            // the node's bucket holds 20 after the change: only the cluster can refuse
            assertEquals(CLUSTER_LIMIT, admittedAfterASwap(gate, ticker, "claimStart", () -> config(ticker, 20, redis)),
                "the cluster's limit: each admitted check spent one leased token");
        }
    }

    /** @return the checks admitted in all: one, the swapped one, the converting one, then until a refusal. */
    private static long admittedAfterASwap(final Floodgate gate, final HookedTicker ticker, final String claim,
        final java.util.function.Supplier<FloodgateConfig> changed)
    {
        assertEquals(Floodgate.ADMITTED, gate.checkLimit("p", Action.PUBLISH)); // the entry, in units of 10 per second
        final AtomicLong converting = new AtomicLong();
        ticker.onNextReadFrom(claim, () ->
        {
            gate.reconfigure(changed.get());
            converting.set(HookedTicker.onOtherThread(() -> gate.checkLimit("p", Action.PUBLISH)));
        });
        assertEquals(Floodgate.ADMITTED, gate.checkLimit("p", Action.PUBLISH), "the swapped check");
        assertFalse(ticker.armed(), "the conversion ran inside the check's claim");
        assertEquals(Floodgate.ADMITTED, converting.get(), "the converting check");
        long admitted = 3;
        for (int i = 0; i < 40 && gate.checkLimit("p", Action.PUBLISH) == Floodgate.ADMITTED; i++)
        {
            admitted++;
        }
        return admitted;
    }
}
