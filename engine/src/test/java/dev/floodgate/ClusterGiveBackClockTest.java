package dev.floodgate;

import dev.floodgate.reader.EntryKind;
import dev.floodgate.reader.FloodgateReader;
import dev.floodgate.reader.TableEntry;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * {@code ChargeGiveBackClockTest}'s case on the clustered path: a bucket check the cluster refuses gives the node's
 * claim back ({@code BucketDoor.spendCluster}), and that give-back must read the clock after the TAT word it judges.
 * With a clock read before the word (as the door did until {@code BucketGiveBack} took a ticker), a thread descheduled
 * after that read returns the part of its claim that refilled meanwhile on top of a check's claim: the node's
 * bucket of 10 ends full where 5 are spent, and admits 5 + 10 within 500 ms once the cluster has tokens again.
 *
 * <p>Deterministic, against a real redis-server: the cluster's bucket is drained first, so the refusal is the
 * lease entry's drained mark, read with one clock read; inside that read the ticker arms the next read of the
 * door's claim (the give-back's), which hands back the time it had while the clock moves 500 ms and another thread
 * checks 5, spent from the lease's balance left.
 */
@Timeout(120)
class ClusterGiveBackClockTest
{
    private static final long MS = 1_000_000L;
    private static final long START_MS = 7_200_000;

    @TempDir
    Path dir;

    @Test
    void shouldNotGiveBackWhatRefilledWhileTheClusterRefusalsGiveBackWasDescheduled() throws Exception
    {
        final ManualTicker time = new ManualTicker(START_MS * MS);
        final HookedTicker ticker = new HookedTicker(time);
        final Path file = dir.resolve("c.map");
        try (LocalRedis redis = LocalRedis.start(); Floodgate gate = Floodgate.open(FloodgateConfig.builder()
            .file(file).capacity(1_000).ticker(ticker).limit(Action.PUBLISH, 10, 1_000)
            .clusterRedisUri(redis.uri()).clusterLimit(Action.PUBLISH, 15, 3_600_000).clusterLease(Action.PUBLISH, 15)
            .clusterFallbackLocal(Action.PUBLISH, false).build()))
        {
            // leases all 15 and spends 9; the refill that 6 left starts, and Redis grants it nothing
            assertEquals(Floodgate.ADMITTED, gate.checkLimit("p", Action.PUBLISH, 9));
            time.advanceMs(1_000); // the node's bucket is full again
            // 10 is more than the balance of 6: refused by the cluster (drained), the node's claim given back whole
            assertNotEquals(Floodgate.ADMITTED, gate.checkLimit("p", Action.PUBLISH, 10));

            final AtomicLong between = new AtomicLong();
            ticker.onNextReadFrom("whenShort", () -> ticker.onNextReadFrom("claim", () ->
            {
                time.advanceMs(500); // half the check's claim refills while the give-back is descheduled
                between.set(HookedTicker.onOtherThread(() -> gate.checkLimit("p", Action.PUBLISH, 5)));
            }));
            final long refused = gate.checkLimit("p", Action.PUBLISH, 10);
            assertFalse(ticker.armed(), "the action ran inside the give-back's clock read");
            assertNotEquals(Floodgate.ADMITTED, refused, "the cluster refuses 10 (its balance holds 6)");
            assertEquals(Floodgate.ADMITTED, between.get(), "5 of the check's 10 had refilled, and the lease holds 6");

            // Had the refused check never claimed, the node's bucket would hold 10 - 5 = 5 now
            try (FloodgateReader reader = FloodgateReader.open(file))
            {
                final TableEntry bucket = reader.entries().stream()
                    .filter(e -> e.kind() == EntryKind.BUCKET && e.label().equals("p")).findFirst().orElseThrow();
                assertEquals(5, reader.state(bucket, time.nanos()).tokens(),
                    "the node's tokens after a check the cluster refused (dump's tokens)");
            }
        }
    }
}
