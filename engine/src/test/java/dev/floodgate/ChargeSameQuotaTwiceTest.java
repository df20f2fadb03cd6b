package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A charge naming one quota twice (the same identifier, action and door: two claims on one entry), with costs
 * that each fit the limit and together exceed it, can never be admitted: each attempt claims the first, is
 * refused the second, gives the first back. It was answered with a retry-after (the bucket's wait for the second
 * cost on top of the first, or the window's end) on every attempt, forever; it is {@code NEVER}, as one cost over
 * the limit is. Costs that together fit are admitted, and quotas on other identifiers, actions or doors are not
 * summed. An injected ticker: every attempt below is made a full window later, on a full quota.
 */
class ChargeSameQuotaTwiceTest
{
    private static final long MS = 1_000_000L;
    private static final long LIMIT = 10;

    @TempDir
    Path dir;

    @Test
    void shouldAnswerNeverWhenOneQuotaNamedTwiceCostsMoreThanItsLimitTogether()
    {
        final ManualTicker ticker = new ManualTicker(3_600_000 * MS);
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("twice.map"))
            .capacity(1_000).ticker(ticker).limit(Action.PUBLISH, LIMIT, 1_000).limit(Action.SUBSCRIBE, LIMIT, 1_000)
            .build()))
        {
            for (final boolean bucket : new boolean[] {true, false})
            {
                final String door = bucket ? "bucket" : "window";
                // one identifier, two spellings of it: the same entry
                final List<Charge> twice = List.of(new Charge("alice", Action.PUBLISH, bucket, 6),
                    new Charge(new StringBuilder("alice"), Action.PUBLISH, bucket, 6));
                assertEquals(Floodgate.NEVER, gate.charge(twice), door + ": 6 + 6 of one quota of 10, on a full quota");
                ticker.advanceMs(1_000);
                assertEquals(Floodgate.NEVER, gate.charge(twice), door + ": and a window later");
                assertEquals(LIMIT, remaining(gate, bucket), door + ": nothing stayed claimed");
                assertEquals(Floodgate.ADMITTED, gate.charge(List.of(new Charge("alice", Action.PUBLISH, bucket, 4),
                    new Charge("alice", Action.PUBLISH, bucket, 6))), door + ": 4 + 6 fit the limit together");
                assertEquals(0, remaining(gate, bucket), door + ": both claimed");
                ticker.advanceMs(1_000);
                // other identifiers, another action, the other door: other quotas, each with room for 6
                assertEquals(Floodgate.ADMITTED, gate.charge(List.of(new Charge("alice", Action.PUBLISH, bucket, 6),
                    new Charge("bob", Action.PUBLISH, bucket, 6), new Charge("alice", Action.SUBSCRIBE, bucket, 6),
                    new Charge("alice", Action.PUBLISH, !bucket, 6))), door + ": four quotas, not one");
                ticker.advanceMs(1_000);
            }
            // a charge counts a check per quota of the action; a NEVER once in the never counter (its first quota)
            assertEquals(new Stats.Checks(10, 8, 0, 4), gate.checks().get(Action.PUBLISH), "PUBLISH's checks");
        }
    }

    private static long remaining(final Floodgate gate, final boolean bucket)
    {
        return (bucket ? gate.probe("alice", Action.PUBLISH) : gate.probeInCaller("alice", Action.PUBLISH)).remaining();
    }
}
