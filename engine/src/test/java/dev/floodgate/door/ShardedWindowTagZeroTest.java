package dev.floodgate.door;

import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.ShardWords;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A give-back that empties a shard in a window whose tag is 0 leaves the word 0, which tryClaim took for an unused
 * shard and started the window before afresh on (found by review; fails before the fix).
 */
class ShardedWindowTagZeroTest
{
    @Test
    void shouldNotStartAnOlderWindowAfreshOnAWordEmptiedByAGiveBackInATagZeroWindow()
    {
        final Entry value = new Entry(new UnsafeBuffer(new byte[EntryLayout.valueLength(Entry.KIND_WINDOW, 1)]));
        value.publishGenerationVolatile(0);
        final WindowRegime regime = new WindowRegime(2, 1_000, 0, 0, 1); // 2 per window, one shard
        final long n = 1L << 22; // tag 0
        assertEquals(2, ShardedWindow.used(ShardedWindow.tryClaim(value, 2, n - 1, regime, regime, 0, 0)),
            "window n-1 spent");
        final long receipt = ShardedWindow.tryClaim(value, 1, n, regime, regime, 0, 0);
        assertEquals(1, ShardedWindow.used(receipt), "window n starts");
        ShardedWindow.giveBack(value, 0, receipt, n, 0); // e.g. a multi-quota charge refused by a later quota
        assertEquals(0, ShardWords.wordVolatile(value, 0), "word(n, 0) is the all-zero word");
        final long late = ShardedWindow.tryClaim(value, 1, n - 1, regime, regime, 0, 0); // a clock a tick behind
        final long claimedIn = ShardedWindow.used(late) == 0 ? -1 : ShardedWindow.numberFrom(late, n - 1);
        assertEquals(true, claimedIn != n - 1, "claimed in window " + claimedIn + ": window n-1 admits a 3rd of 2");
    }
}
