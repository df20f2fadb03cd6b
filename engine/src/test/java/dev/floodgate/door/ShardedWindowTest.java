package dev.floodgate.door;

import dev.floodgate.store.Entry;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ShardedWindowTest
{
    /** One token from one shard of cap {@code cap}, on an entry of generation 0: 1 claimed, 0 exhausted. */
    private static long claim(final Entry value, final int shard, final long cap, final long windowNumber)
    {
        // every shard up to this one capped at cap, so the claim's shard is both its word and its cap
        final WindowRegime regime = new WindowRegime(cap * (shard + 1), 1_000, 0, Long.MIN_VALUE, shard + 1);
        return ShardedWindow.used(ShardedWindow.tryClaim(value, 1, windowNumber, regime, regime, shard, 0));
    }

    /** A window entry of one shard, generation 0. */
    private static Entry oneShard()
    {
        final Entry value = new Entry(new UnsafeBuffer(new byte[Entry.valueLength(Entry.KIND_WINDOW, 1)]));
        value.publishGenerationVolatile(0);
        return value;
    }

    @ParameterizedTest(name = "limit {0} over {1} shards")
    @CsvSource({"1,4", "3,4", "4,4", "5,4", "7,2", "100,8", "16777215,64", "2,1"})
    void shouldSpreadCapsSummingToExactlyTheLimitWithTheRemainderOnLowShards(final long limit, final int shards)
    {
        final ShardedWindow window = new ShardedWindow(limit, 1_000, shards);
        long sum = 0;
        for (int shard = 0; shard < shards; shard++)
        {
            final long cap = window.cap(shard);
            sum += cap;
            if (shard > 0)
            {
                assertTrue(window.cap(shard - 1) >= cap, "low shards carry the remainder");
                assertTrue(window.cap(shard - 1) - cap <= 1, "caps differ by at most one");
            }
        }
        assertEquals(limit, sum);
        assertEquals(Math.min(limit, shards), window.activeShards());
        for (int shard = window.activeShards(); shard < shards; shard++)
        {
            assertEquals(0, window.cap(shard), "shards past the limit get nothing");
        }
    }

    @ParameterizedTest(name = "limit {0} over {1} shards")
    @CsvSource({"1,4", "3,4", "4,4", "5,4", "100,8", "1000,3"})
    void shouldAdmitExactlyTheLimitPerWindowAcrossAllShards(final long limit, final int shards)
    {
        final ShardedWindow window = new ShardedWindow(limit, 1_000, shards);
        final Entry value = new Entry(new UnsafeBuffer(new byte[Entry.valueLength(Entry.KIND_WINDOW, shards)]));
        for (final long windowNumber : new long[] {5, 6, 1_000_000})
        {
            long admitted = 0;
            for (int shard = 0; shard < shards; shard++)
            {
                while (claim(value, shard, Math.max(1, window.cap(shard)),
                    windowNumber) == 1 && window.cap(shard) > 0)
                {
                    admitted++;
                }
            }
            assertEquals(limit, admitted, "window " + windowNumber + " starts afresh and admits exactly the limit");
        }
    }

    @Test
    void shouldClaimAWordOfANewerWindowInThatWindowAndNeverMoveItBack()
    {
        final Entry value = oneShard();
        value.putShardVolatile(0, ShardedWindow.word(11, 2));
        // a process whose clock still reads window 10 claims in window 11, capped there
        assertEquals(1, claim(value, 0, 3, 10));
        assertEquals(ShardedWindow.word(11, 3), value.shardVolatile(0));
        assertEquals(0, claim(value, 0, 3, 10));
        assertEquals(ShardedWindow.word(11, 3), value.shardVolatile(0));
        // window 12 starts the shard afresh
        assertEquals(1, claim(value, 0, 3, 12));
        assertEquals(ShardedWindow.word(12, 1), value.shardVolatile(0));
    }

    @ParameterizedTest(name = "now {0} ms, window {1} ms")
    @CsvSource({"0,1000,0,1000", "999,1000,0,1", "1000,1000,1,1000", "-1,1000,-1,1", "-1000,1000,-1,1000",
        "-1001,1000,-2,1", "-9223372036854775808,7,-1317624576693539402,1"})
    void shouldAlignWindowsToMultiplesOfTheWindowIncludingNegativeMonotonicTime(
        final long nowMs, final long windowMs, final long number, final long retryAfter)
    {
        final ShardedWindow window = new ShardedWindow(10, windowMs, 2);
        assertEquals(number, window.windowNumber(nowMs));
        assertEquals(retryAfter, window.retryAfterMs(nowMs, number));
    }

    @Test
    void shouldTreatAnUnusedWordAsFreshWhateverWindowItAppearsToHold()
    {
        // a new or reset shard word is 0, which reads as window 0: for a negative window number whose low 40
        // bits look older than 0, it must still start afresh rather than be mistaken for a newer window
        final long negative = -3_600_000_123L;
        assertTrue(ShardedWindow.age(negative, 0) < 0, "the premise: 0 looks newer");
        final Entry value = oneShard();
        assertEquals(1, claim(value, 0, 2, negative));
        assertEquals(ShardedWindow.word(negative, 1), value.shardVolatile(0));
        assertEquals(1, claim(value, 0, 2, negative));
        assertEquals(0, claim(value, 0, 2, negative));
        assertEquals(1, claim(value, 0, 2, negative + 1), "and the next window starts afresh");
        assertTrue(ShardedWindow.isOver(0, negative));
    }

    @Test
    void shouldCompareWindowNumbersAcrossTheFortyBitWrap()
    {
        final long lastBefore = (1L << 40) - 1;
        final long word = ShardedWindow.word(lastBefore, 5);
        assertEquals(1, ShardedWindow.age(1L << 40, word), "the next window after a wrap is newer");
        assertEquals(-1, ShardedWindow.age(lastBefore - 1, word));
        assertEquals(0, ShardedWindow.usedIn(word, 1L << 40));
        assertEquals(5, ShardedWindow.usedIn(word, lastBefore));
        assertEquals(1, ShardedWindow.age(-5, ShardedWindow.word(-6, 1)), "negative window numbers order too");
    }

    @Test
    void shouldSpreadProbesOverShardsWithoutDivision()
    {
        final int[] hits = new int[3];
        int probe = 0x9E3779B9;
        for (int i = 0; i < 30_000; i++)
        {
            probe ^= probe << 13;
            probe ^= probe >>> 17;
            probe ^= probe << 5;
            hits[ShardProbe.shard(probe, 3)]++;
        }
        for (final int h : hits)
        {
            assertTrue(h > 9_000 && h < 11_000, "even spread: " + java.util.Arrays.toString(hits));
        }
    }
}
