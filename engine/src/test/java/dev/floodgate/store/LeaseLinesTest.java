package dev.floodgate.store;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The warm spend's take by address ({@link LeaseLines#take}) reaches the words {@link LeaseWords} and {@link Entry}
 * reach, and the line a probe picks is always one of the entry's, since nothing checks its address.
 */
class LeaseLinesTest
{
    private static final int SHARDS = 4;
    private static final long GENERATION = 7;

    private final Entry entry = new Entry(new UnsafeBuffer(new byte[EntryLayout.valueLength(Entry.KIND_LEASE, SHARDS)]));

    LeaseLinesTest()
    {
        entry.publishGenerationVolatile(GENERATION);
    }

    @Test
    void shouldTakeFromTheSameWordsAsTheEntry()
    {
        final LeaseLines lines = new LeaseLines(entry);
        assertEquals(SHARDS, lines.count());
        for (int line = 0; line < SHARDS; line++)
        {
            assertTrue(LeaseWords.casLine(entry, line, 0, 100 + line));
        }
        for (int line = 0; line < SHARDS; line++)
        {
            final int probe = probeOf(line);
            assertEquals(line, lines.lineOf(probe));
            assertEquals(LeaseLines.TAKEN, lines.take(probe, GENERATION, 30));
            assertEquals(70 + line, LeaseWords.lineVolatile(entry, line), "line " + line);
            assertEquals(70 + line, lines.take(probe, GENERATION, 71 + line), "short: the line's balance");
            assertEquals(70 + line, LeaseWords.lineVolatile(entry, line), "a short take moves nothing");
        }
        assertEquals(0, LeaseWords.centralVolatile(entry), "no line's write lands on the central balance");
        entry.publishGenerationVolatile(GENERATION + 1);
        assertEquals(LeaseLines.GONE, lines.take(probeOf(1), GENERATION, 1), "the generation word is the entry's");
        assertEquals(71, LeaseWords.lineVolatile(entry, 1), "nothing taken from a changed entry");
    }

    /** The line is not tested when {@link LeaseLines#take} reaches it, so every probe must pick one of the entry's. */
    @Test
    void shouldPickALineOfTheEntryForEveryProbe()
    {
        final LeaseLines lines = new LeaseLines(entry);
        final int[] edges = {0, 1, -1, Integer.MIN_VALUE, Integer.MAX_VALUE, probeOf(SHARDS - 1) - 1};
        for (final int probe : edges)
        {
            final int line = lines.lineOf(probe);
            assertTrue(line >= 0 && line < SHARDS, "probe " + probe + " picked line " + line);
        }
        assertEquals(SHARDS - 1, lines.lineOf(-1), "the largest probe, read unsigned, picks the last line");
        final SplittableRandom random = new SplittableRandom(42);
        for (int i = 0; i < 100_000; i++)
        {
            final int probe = random.nextInt();
            final int line = lines.lineOf(probe);
            assertTrue(line >= 0 && line < SHARDS, "probe " + probe + " picked line " + line);
        }
        final LeaseLines none = new LeaseLines(
            new Entry(new UnsafeBuffer(new byte[EntryLayout.LEASE_BASE_LENGTH])));
        assertEquals(0, none.count(), "a lease written before there were lines has none");
    }

    /** @return the smallest probe (read unsigned) that picks {@code line} of {@link #SHARDS}. */
    private static int probeOf(final int line)
    {
        final long from = (long)line << 32;
        return (int)(from / SHARDS + (from % SHARDS == 0 ? 0 : 1));
    }
}
