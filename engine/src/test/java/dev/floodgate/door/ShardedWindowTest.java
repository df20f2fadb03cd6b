package dev.floodgate.door;

import dev.floodgate.store.Entry;
import dev.floodgate.store.EntryLayout;
import dev.floodgate.store.ShardWords;
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
        final Entry value = new Entry(new UnsafeBuffer(new byte[EntryLayout.valueLength(Entry.KIND_WINDOW, 1)]));
        value.publishGenerationVolatile(0);
        return value;
    }

    @ParameterizedTest(name = "limit {0} over {1} shards")
    @CsvSource({"1,4", "3,4", "4,4", "5,4", "7,2", "100,8", "16777215,64", "2,1", "1099511627776,1",
        "4398046511103,1", "4398046511103,64"})
    void shouldSpreadCapsSummingToExactlyTheLimitWithTheRemainderOnLowShards(final long limit, final int shards)
    {
        final WindowRegime window = new WindowRegime(limit, 1_000, 0, 0, shards);
        long sum = 0;
        for (int shard = 0; shard < shards; shard++)
        {
            final long cap = window.cap(shard);
            assertTrue(cap <= ShardedWindow.MAX_CAP, "every cap fits a shard word");
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
        final WindowRegime window = new WindowRegime(limit, 1_000, 0, 0, shards);
        final Entry value = new Entry(new UnsafeBuffer(new byte[EntryLayout.valueLength(Entry.KIND_WINDOW, shards)]));
        for (final long windowNumber : new long[] {5, 6, 1_000_000, 1_000_000 + (1L << 22)})
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

    @ParameterizedTest(name = "limit {0}")
    @CsvSource({"1099511627776", "4398046511103", "100000000"})
    void shouldCountByteScaleClaimsExactlyUpToTheCapOfOneShard(final long limit)
    {
        final Entry value = oneShard();
        final WindowRegime regime = new WindowRegime(limit, 1_000, 0, 0, 1);
        final long first = limit / 3;
        assertEquals(first, ShardedWindow.used(ShardedWindow.tryClaim(value, first, 7, regime, regime, 0, 0)));
        assertEquals(limit - first, ShardedWindow.used(
            ShardedWindow.tryClaim(value, limit, 7, regime, regime, 0, 0)), "a claim takes what the cap leaves");
        assertEquals(ShardedWindow.EXHAUSTED, ShardedWindow.tryClaim(value, 1, 7, regime, regime, 0, 0));
        final long word = ShardWords.wordVolatile(value, 0);
        assertEquals(limit, ShardedWindow.used(word));
        assertEquals(7, ShardedWindow.number(word, ShardWords.newestVolatile(value, 0)),
            "the count never spills into the tag");
        assertEquals(1, ShardedWindow.used(ShardedWindow.tryClaim(value, 1, 8, regime, regime, 0, 0)),
            "the next window starts afresh");
    }

    @Test
    void shouldClaimAWordOfANewerWindowInThatWindowAndNeverMoveItBack()
    {
        final Entry value = oneShard();
        assertTrue(ShardWords.casNewest(value, 0, 0, 11));
        ShardWords.putWordVolatile(value, 0, ShardedWindow.word(11, 2));
        // a process whose clock still reads window 10 claims in window 11, capped there
        assertEquals(1, claim(value, 0, 3, 10));
        assertEquals(ShardedWindow.word(11, 3), ShardWords.wordVolatile(value, 0));
        assertEquals(0, claim(value, 0, 3, 10));
        assertEquals(ShardedWindow.word(11, 3), ShardWords.wordVolatile(value, 0));
        // window 12 starts the shard afresh, its newest number raised with it
        assertEquals(1, claim(value, 0, 3, 12));
        assertEquals(ShardedWindow.word(12, 1), ShardWords.wordVolatile(value, 0));
        assertEquals(12, ShardWords.newestVolatile(value, 0));
    }

    @ParameterizedTest(name = "now {0} ms, window {1} ms")
    @CsvSource({"0,1000,0,1000", "999,1000,0,1", "1000,1000,1,1000", "-1,1000,-1,1", "-1000,1000,-1,1000",
        "-1001,1000,-2,1", "-9223372036854775808,7,-1317624576693539402,1"})
    void shouldAlignWindowsToMultiplesOfTheWindowIncludingNegativeMonotonicTime(
        final long nowMs, final long windowMs, final long number, final long retryAfter)
    {
        final WindowRegime window = new WindowRegime(10, windowMs, 0, 0, 2);
        assertEquals(number, window.number(nowMs));
        assertEquals(retryAfter, window.startMs(number) + windowMs - nowMs);
    }

    @Test
    void shouldTreatAnUnusedWordAsFreshWhateverWindowItAppearsToHold()
    {
        // a new or reset shard word is 0 with a newest number of 0: a negative window number far below that
        // starts afresh, and its newest number comes down with it so the word reads back
        final long negative = -3_600_000_123L;
        final Entry value = oneShard();
        assertEquals(1, claim(value, 0, 2, negative));
        assertEquals(ShardedWindow.word(negative, 1), ShardWords.wordVolatile(value, 0));
        assertEquals(negative,
            ShardedWindow.number(ShardWords.wordVolatile(value, 0), ShardWords.newestVolatile(value, 0)));
        assertEquals(1, claim(value, 0, 2, negative));
        assertEquals(0, claim(value, 0, 2, negative));
        assertEquals(1, claim(value, 0, 2, negative + 1), "and the next window starts afresh");
        assertTrue(ShardedWindow.isOver(0, 0, negative));
    }

    @Test
    void shouldReadAWordsWindowBackExactlyWithinTwoToTheTwentyTwoWindowsOfItsNewestNumber()
    {
        final long wrap = 1L << 22;
        for (final long newest : new long[] {wrap, 5 * wrap + 3, 123_456_789_012L, -5, 0})
        {
            for (final long behind : new long[] {0, 1, 2, wrap / 2, wrap - 1})
            {
                final long number = newest - behind;
                final long word = ShardedWindow.word(number, 5);
                assertEquals(number, ShardedWindow.number(word, newest), newest + " - " + behind);
                assertEquals(5, ShardedWindow.usedIn(word, newest, number));
                assertEquals(0, ShardedWindow.usedIn(word, newest, number + 1), "a later window: over");
                assertEquals(number, ShardedWindow.numberFrom(word, number - 3), "a receipt from its check's start");
            }
        }
    }

    @Test
    void shouldOnlyEverRefuseWhenAWordIdleForTwoToTheTwentyTwoWindowsReadsAsTheCurrentOne()
    {
        // the documented limit of the tag: a shard idle exactly 2^22 windows while its newest number moved on
        // reads its stale count as the current window's; that can refuse early, never admit beyond the cap
        final long current = 10L << 22;
        final Entry value = oneShard();
        assertTrue(ShardWords.casNewest(value, 0, 0, current));
        ShardWords.putWordVolatile(value, 0, ShardedWindow.word(current - (1L << 22), 2));
        long admitted = 0;
        while (claim(value, 0, 3, current) == 1)
        {
            admitted++;
        }
        assertEquals(1, admitted, "the stale count of 2 is read as this window's: under, never over, the cap");
    }

    @Test
    void shouldClaimOnlyWhereTheReceiptNamesTheWindowFromTheChecksStartSoEveryGiveBackLands()
    {
        // a shard already in a newer window takes the claim there, as long as the receipt's tag, read from the
        // window the check started in, names it: less than 2^22 windows past; 2^22 past has that window's tag
        final WindowRegime regime = new WindowRegime(3, 1_000, 0, Long.MIN_VALUE, 1);
        final long from = 7L << 22;
        for (final long ahead : new long[] {1, (1L << 22) - 1, 1L << 22, 5L << 22})
        {
            final Entry value = oneShard();
            final long held = from + ahead;
            assertTrue(ShardWords.casNewest(value, 0, 0, held));
            ShardWords.putWordVolatile(value, 0, ShardedWindow.word(held, 1));
            final long receipt = ShardedWindow.tryClaim(value, 2, from, regime, regime, 0, 0);
            if (ahead < 1L << 22)
            {
                assertEquals(2, ShardedWindow.used(receipt), ahead + " windows ahead: claimed in the shard's window");
                assertEquals(held, ShardedWindow.numberFrom(receipt, from));
                assertTrue(ShardedWindow.giveBack(value, 0, receipt, from, 0));
                assertEquals(ShardedWindow.word(held, 1), ShardWords.wordVolatile(value, 0), "given back in full");
            }
            else
            {
                assertEquals(ShardedWindow.EXHAUSTED, receipt, ahead + " windows ahead: refused on this shard");
                assertEquals(ShardedWindow.word(held, 1), ShardWords.wordVolatile(value, 0), "nothing written");
            }
        }
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
