package dev.floodgate.store;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The warm spend's words by address ({@link LeaseLines}) are the words {@link LeaseWords} and {@link Entry} reach,
 * and a line outside the entry is refused before any access, since nothing checks the address after that.
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
    void shouldReachTheSameWordsAsTheEntry()
    {
        final LeaseLines lines = new LeaseLines(entry);
        assertEquals(SHARDS, lines.count());
        for (int line = 0; line < SHARDS; line++)
        {
            assertTrue(LeaseWords.casLine(entry, line, 0, 100 + line));
        }
        for (int line = 0; line < SHARDS; line++)
        {
            final long at = lines.line(line);
            assertEquals(100 + line, lines.lineVolatile(at), "line " + line);
            assertFalse(lines.casLine(at, 0, 1), "a stale expected value moves nothing");
            assertTrue(lines.casLine(at, 100 + line, 200 + line));
            assertEquals(200 + line, LeaseWords.lineVolatile(entry, line));
        }
        assertEquals(0, LeaseWords.centralVolatile(entry), "no line's write lands on the central balance");
        assertTrue(lines.isCurrentAcquire(GENERATION));
        entry.publishGenerationVolatile(GENERATION + 1);
        assertFalse(lines.isCurrentAcquire(GENERATION), "the generation word is the entry's");
    }

    @Test
    void shouldRefuseALineOutsideTheEntry()
    {
        final LeaseLines lines = new LeaseLines(entry);
        assertThrows(IndexOutOfBoundsException.class, () -> lines.line(SHARDS));
        assertThrows(IndexOutOfBoundsException.class, () -> lines.line(-1));
        final LeaseLines none = new LeaseLines(
            new Entry(new UnsafeBuffer(new byte[EntryLayout.LEASE_BASE_LENGTH])));
        assertEquals(0, none.count(), "a lease written before there were lines has none");
        assertThrows(IndexOutOfBoundsException.class, () -> none.line(0));
    }
}
