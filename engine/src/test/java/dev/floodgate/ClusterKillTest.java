package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.LocalRedis;
import dev.floodgate.testkit.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node's JVM SIGKILLed while holding a lease, with its refill in flight: Redis is stopped (SIGSTOP) while the
 * victim spends the balance below half a lease, so its refill is sent and unanswered when it dies; Redis is
 * resumed after the kill and may apply that lease for nobody. Then the victim's sibling on the same file and two
 * other nodes hammer the same identifier. The cluster total (the victim's admissions and the survivors') never
 * exceeds the cluster bucket's allowance over the measured server time: the killed JVM's unused tokens (its
 * node's balance, which its sibling spends, and the grant nobody received, which the sibling's retry of the same
 * sequence recovers or which is lost) are never spent twice.
 */
@Timeout(300)
class ClusterKillTest
{
    private static final long LIMIT = 300;
    private static final long WINDOW_MS = 1_000;
    private static final long LEASE = 30;

    @TempDir
    Path dir;

    @Test
    void shouldNeverSpendTheTokensOfANodeKilledWithARefillInFlightTwice() throws Exception
    {
        final Path go = dir.resolve("go");
        final Path leaseGo = dir.resolve("lease");
        final Path spendGo = dir.resolve("spend");
        final List<ChildJvm> children = new ArrayList<>();
        try (LocalRedis redis = LocalRedis.start())
        {
            // one at a time, so each file is created in a later ms than the last: a node name each
            final ChildJvm victim = ClusterKit.startVictim(dir.resolve("node0.map"), redis.uri(), LIMIT, WINDOW_MS,
                LEASE, leaseGo, spendGo);
            children.add(victim);
            victim.awaitLine("READY", 120);
            final List<ChildJvm> survivors = new ArrayList<>();
            for (final String file : new String[] {"node1.map", "node2.map", "node0.map"})
            {
                final ChildJvm worker = ClusterKit.startWorker(dir.resolve(file), redis.uri(), LIMIT, WINDOW_MS,
                    LEASE, 2, 3_000, go);
                children.add(worker);
                survivors.add(worker);
                worker.awaitLine("READY", 120);
            }

            final long startMs = redis.timeMs(); // the bucket is full: nothing checked it yet
            final String spent = ClusterKit.killMidRefill(victim, redis, leaseGo, spendGo).spent();
            final long byVictim = Worker.field(spent, "admitted");
            assertEquals(LEASE / 2 + 1, byVictim, spent);

            Files.createFile(go);
            final List<String> results = new ArrayList<>();
            final long admitted = byVictim + ClusterKit.admitted(survivors, results);
            final long endMs = redis.timeMs();
            for (final ChildJvm worker : survivors)
            {
                assertEquals(0, worker.awaitExit(60), worker.transcript());
            }
            final long allowance = ClusterKit.allowance(LIMIT, WINDOW_MS, startMs, endMs);
            System.out.println("a node's JVM killed with its refill in flight after " + spent + "; the cluster " +
                "admitted " + admitted + " in all, the allowance over " + (endMs - startMs) + " ms of server time " +
                "is " + allowance + ": nodes 1, 2 and the victim's sibling " + results);
            assertTrue(admitted <= allowance, "admitted " + admitted + " over the cluster's " + allowance + ": " +
                results);
            assertTrue(admitted >= LIMIT, "the premise, the cluster quota was spent: " + results);
            for (final String result : results)
            {
                assertTrue(Worker.field(result, "admitted") > 0, "every survivor got a share, the victim's " +
                    "sibling too: " + results);
            }
        }
        finally
        {
            children.forEach(ChildJvm::close);
        }
    }
}
