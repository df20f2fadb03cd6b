package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.LocalRedis;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM SIGKILLed with its node's refill in flight holds the lease entry's refill word. Its sibling asks the
 * kernel (the registry's slot locks) whether the holder lives, and takes the word over at its first check that
 * finds the balance short once the word is older than a check's wait, instead of refusing that key until the
 * takeover bound (3 x the lease's 1 s) has passed.
 *
 * <p>Deterministic: the sibling reads a ticker that starts at the kill and moves 100 us per read, so its checks
 * see well under a second pass however slowly the host runs them; the victim leases from one Redis (stopped
 * around the kill, so its refill never ends), the sibling from another, whose call count says whether the sibling
 * sent a lease at all.
 */
@Timeout(180)
class ClusterTakeoverTest
{
    private static final long LEASE = 10;
    private static final long LIMIT = 1_000;
    private static final long WINDOW_MS = 60_000;

    @TempDir
    Path dir;

    @Test
    void aSiblingTakesOverTheRefillOfAKilledFetcherWithoutWaitingForTheTakeoverBound() throws Exception
    {
        final Path file = dir.resolve("node.map");
        final Path leaseGo = dir.resolve("lease");
        final Path spendGo = dir.resolve("spend");
        try (LocalRedis victimsRedis = LocalRedis.start(); LocalRedis siblingsRedis = LocalRedis.start();
            ChildJvm victim = ClusterKit.startVictim(file, victimsRedis.uri(), LIMIT, WINDOW_MS, LEASE, leaseGo,
                spendGo))
        {
            victim.awaitLine("READY", 120);
            // its refill holds the word
            final long killedAt = ClusterKit.killMidRefill(victim, victimsRedis, leaseGo, spendGo).atNanos();

            final AtomicLong virtual = new AtomicLong(killedAt);
            final FloodgateConfig config = ClusterKit.publishNode(file, siblingsRedis.uri(), LIMIT, WINDOW_MS, LEASE)
                .ticker(() -> virtual.addAndGet(100_000)).build();
            try (Floodgate sibling = Floodgate.open(config))
            {
                // the victim left LEASE - (LEASE / 2 + 1) = 4 tokens: spent, then the balance is short
                int admitted = 0;
                for (int check = 0; check < 8; check++)
                {
                    admitted += sibling.checkLimit("hot", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
                }
                final long seenNanos = virtual.get() - killedAt;
                assertTrue(seenNanos < TimeUnit.SECONDS.toNanos(2), "the sibling's clock stayed well under the " +
                    "3 s takeover bound: " + seenNanos / 1_000_000 + " ms");
                assertTrue(admitted >= 4, "the balance the victim left was spent: " + admitted);

                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (siblingsRedis.scriptCalls() == 0)
                {
                    assertTrue(System.nanoTime() - deadline < 0, "the sibling never asked for a lease: the dead " +
                        "fetcher's refill word was not taken over within " + seenNanos / 1_000_000 + " ms");
                    Thread.sleep(20);
                }
                long more = 0;
                while (more == 0)
                {
                    assertTrue(System.nanoTime() - deadline < 0, "leases resumed on the sibling within 30 s");
                    more += sibling.checkLimit("hot", Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
                }
                assertEquals(1, more);
            }
        }
    }
}
