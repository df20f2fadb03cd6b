package dev.floodgate.store;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The lock file's offsets are a format shared with every engine version that opens the same table: each takes the
 * same bytes (a replacer of an older engine holds byte 1000, a claimer byte 3072 + k). They are derived from each
 * other in {@link LockFileLayout}; this pins the numbers, so a change to one derivation is a failed test, not two
 * engine versions locking different bytes.
 */
class LockFileLayoutTest
{
    @Test
    void shouldKeepEveryOffsetOfTheSharedFormat()
    {
        assertEquals(1024, LockFileLayout.LENGTH, "the file's length, mapped whole");
        assertEquals(0, LockFileLayout.slotWordOffset(0));
        assertEquals(8, LockFileLayout.slotWordOffset(1));
        assertEquals(8 * 63, LockFileLayout.slotWordOffset(FileHeader.MAX_PROCESSES - 1), "the last slot's word");
        assertEquals(1000, LockFileLayout.REPLACE_BYTE, "the replace lock");
        assertEquals(64, LockFileLayout.CREATORS);
        assertEquals(2048, LockFileLayout.CREATOR_BASE, "the first creator lock");
        assertEquals(3072, LockFileLayout.CLAIM_BASE, "slot 0's claim lock");
    }
}
