package dev.floodgate;

import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.OpenGates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static dev.floodgate.testkit.PublishChecks.admitted;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A give-back reads its receipt's 22-bit tag from the window its check started in ({@code ShardedWindow.numberFrom}),
 * which names the window exactly only while the claim landed less than 2^22 windows past it. Each replacement of a
 * pending regime moves its base on by 2^20 ({@code PolicyPlanner.NUMBER_JUMP}), so four window publishes inside one
 * window (none entered) put the new regime's base exactly 2^22 past the window in force: the same tag. A weighted
 * check whose clock is still in the window in force (a JVM a tick behind) claimed in the new regime's first window
 * (a shard already there), came up short and gave back: the receipt read as the window in force, and the give-back
 * was skipped. The tokens stayed counted where nobody was admitted: later checks were refused while the window had
 * room (found by review). A check is now refused on a shard 2^22 windows or more past its start.
 */
@Timeout(60)
class GiveBackTagAliasTest
{
    private static final long MS = 1_000_000L;
    private static final long START_MS = 3_600_000;
    private static final long E0 = START_MS + 1_000;

    @TempDir
    Path dir;

    @RegisterExtension
    final OpenGates gates = new OpenGates();

    private FloodgateConfig config(final Ticker ticker, final long limit)
    {
        return FloodgateConfig.builder().file(dir.resolve("alias.map")).capacity(1_000).ticker(ticker)
            .reclaimGraceMs(FloodgateConfig.MIN_RECLAIM_GRACE_MS).limit(Action.PUBLISH, limit, 1_000).build();
    }

    private Floodgate open(final Ticker ticker, final long limit)
    {
        return gates.open(config(ticker, limit));
    }

    @Test
    void shouldLeaveNothingCountedByARefusedWeightedCheckATickBehindTheNewRegimesFirstWindow()
    {
        try (QuotaTable table = QuotaTable.open(dir.resolve("alias.map"), 1_000, 2, false, START_MS * MS))
        {
            assertEquals(2, table.shards());
        }
        final ManualTicker lagging = new ManualTicker((START_MS + 500) * MS);
        final ManualTicker ahead = new ManualTicker((START_MS + 500) * MS);
        final Floodgate behind = open(lagging, 10); // the first block: 10 per 1 s
        final Floodgate front = open(ahead, 10);
        // four publishes while [START, START + 1000) is in force and nothing counted in the pending regime yet:
        // each replaces the pending regime with base + 2^20, so the last base is 2^22 past window START / 1000
        for (final long limit : new long[] {6, 7, 8, 9})
        {
            behind.reconfigure(config(lagging, limit));
        }
        ahead.set(E0 * MS);
        assertEquals(1, admitted(front, 1), "window [E0, E0 + 1000) under 9: one spent");
        lagging.set((E0 - 1) * MS); // a tick behind the other JVM
        // 10 fits the window in force (limit 10), but one shard is already in the new regime's first window, 2^22
        // past it: the check comes up short and gives back what it claimed
        final long refused = behind.checkLimitInCaller("u", Action.PUBLISH, 10);
        assertNotEquals(Floodgate.ADMITTED, refused);
        ahead.set((E0 + 1) * MS);
        final int left = admitted(front, 20);
        assertEquals(8, left, "window [E0, E0 + 1000) holds 9 and spent 1: the refused check's give-back was " +
            "skipped, " + (8 - left) + " tokens stay counted that nobody was admitted");
    }
}
