package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.RandomMix;
import dev.floodgate.testkit.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The random mix from several threads in two JVMs, while a third one doing the same mix is SIGKILLed at random
 * moments (inside inserts, resets and janitor passes) and replaced, against the sequential model's bounds. Week-long windows
 * and no refill worth a token make the model simple: without resets a key admits exactly
 * {@code min(attempts, limit)} per door; with resets racing the checks (the documented race: an admission
 * may count before or after a concurrent reset) it admits at least that and at most
 * {@code limit x (resets + 1)}. A killed JVM may die between an admission and printing it: the lower bounds
 * allow one unseen admission per kill. Op sequences repeat from the printed seed; interleavings do not.
 * For longer runs: {@code -Dfloodgate.mix.threads=N} checker threads in each of the two JVMs (3),
 * {@code -Dfloodgate.mix.ops=N} ops per thread (4,000), {@code -Dfloodgate.mix.kills=N} victims killed (4).
 */
@Timeout(300)
class RandomMixTest
{
    private static final long LIMIT = 500;
    private static final int KILLS = Integer.getInteger("floodgate.mix.kills", 4);
    private static final int THREADS = Integer.getInteger("floodgate.mix.threads", 3);
    private static final int OPS = Integer.getInteger("floodgate.mix.ops", 4_000);

    @TempDir
    Path dir;

    @Test
    void shouldNeverAdmitMoreThanTheModelAllowsNorRefuseWhileItHasTokens() throws Exception
    {
        final long seed = Long.getLong("floodgate.mix.seed", System.nanoTime());
        System.out.println("RandomMixTest seed=" + seed + " threads=" + THREADS + " ops=" + OPS + " kills=" + KILLS);
        final Path file = dir.resolve("mix.map");
        final Path go = dir.resolve("go");
        final List<ChildJvm> jvms = new ArrayList<>();
        final long before = Math.floorDiv(System.nanoTime() / 1_000_000L, FloodgateConfig.MAX_WINDOW_MS);
        try
        {
            for (int jvm = 0; jvm < 2; jvm++)
            {
                jvms.add(ChildJvm.start(RandomMix.class, file.toString(), Long.toString(seed + jvm),
                    Integer.toString(THREADS), Integer.toString(OPS), Long.toString(LIMIT), go.toString()));
            }
            for (final ChildJvm jvm : jvms)
            {
                jvm.awaitLine("READY", 120);
            }
            Files.createFile(go);
            final long[] attempts = new long[2 * RandomMix.KEYS];
            final long[] admitted = new long[2 * RandomMix.KEYS];
            long resets = 0;
            final Random random = new Random(seed);
            for (int kill = 0; kill < KILLS; kill++)
            {
                try (ChildJvm victim = ChildJvm.start(RandomMix.class, file.toString(), Long.toString(seed + 100 +
                    kill), "2", "0", Long.toString(LIMIT), go.toString(), "victim"))
                {
                    victim.awaitLine("READY", 120);
                    Thread.sleep(100 + random.nextInt(400)); // the scenario: a kill at a random moment of its work
                    victim.kill();
                    for (final String line : victim.transcript().split("\n"))
                    {
                        if (line.startsWith("A "))
                        {
                            final String[] parts = line.split(" ");
                            admitted[Integer.parseInt(parts[1]) * RandomMix.KEYS + Integer.parseInt(parts[2])]++;
                            attempts[Integer.parseInt(parts[1]) * RandomMix.KEYS + Integer.parseInt(parts[2])]++;
                        }
                        resets += line.equals("R") ? 1 : 0;
                    }
                }
            }
            for (final ChildJvm jvm : jvms)
            {
                final String result = jvm.awaitLine("RESULT", 180);
                assertEquals(0, jvm.awaitExit(30), jvm.transcript());
                assertEquals(0, Worker.field(result, "errors"), jvm.transcript());
                final long[] a = RandomMix.array(result, "attempts");
                final long[] b = RandomMix.array(result, "admitted");
                for (int i = 0; i < attempts.length; i++)
                {
                    attempts[i] += a[i];
                    admitted[i] += b[i];
                }
                resets += Worker.field(result, "resets");
            }
            assertEquals(before, Math.floorDiv(System.nanoTime() / 1_000_000L, FloodgateConfig.MAX_WINDOW_MS),
                "straddled a week boundary; rerun");
            for (int door = 0; door < 2; door++)
            {
                for (int key = 0; key < RandomMix.KEYS; key++)
                {
                    final int i = door * RandomMix.KEYS + key;
                    final String what = "seed " + seed + (door == 0 ? " bucket" : " window") + " key-" + key +
                        ": attempts " + attempts[i] + ", admitted " + admitted[i] + ", resets " + resets;
                    assertTrue(admitted[i] >= Math.min(attempts[i], LIMIT) - KILLS,
                        "refused while tokens remained: " + what);
                    if (key < RandomMix.KEYS - 1)
                    {
                        assertTrue(admitted[i] <= LIMIT && admitted[i] >= Math.min(attempts[i], LIMIT) - KILLS, what);
                    }
                    else
                    {
                        assertTrue(admitted[i] <= LIMIT * (resets + 1), "more than the model allows: " + what);
                    }
                }
            }
        }
        finally
        {
            jvms.forEach(ChildJvm::close);
        }
    }
}
