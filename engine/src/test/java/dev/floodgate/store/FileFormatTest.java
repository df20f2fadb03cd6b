package dev.floodgate.store;

import dev.floodgate.Action;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The file's picture ({@link FileFormat}) and the strides it names agree with the code and with the actions. */
class FileFormatTest
{
    @Test
    void shouldSizeEveryPerActionRegionForTheActionsThereAre()
    {
        final int actions = Action.values().length;
        assertEquals(actions, FileHeader.FORMAT_ACTIONS, "a new action needs a new format version");
        assertEquals(actions * FileHeader.POLICY_ACTION_STRIDE, FileHeader.POLICY_RECORD_LENGTH);
        assertTrue(FileHeader.COUNTERS_STRIDE >= actions * CounterRegion.COUNTERS * Long.BYTES);
        assertTrue(FileHeader.TABLE_FULL_OFFSET + actions * Long.BYTES <= FileHeader.DEGRADED_OFFSET);
        assertTrue(FileHeader.DEGRADED_OFFSET + actions * Long.BYTES <= FileHeader.POLICY_GENERATION_OFFSET);
    }

    @Test
    void shouldPlaceTheRegionsWhereThePictureSays()
    {
        assertEquals(4608, FileHeader.POLICY_RECORDS_OFFSET);
        assertEquals(640, FileHeader.POLICY_RECORD_LENGTH);
        assertEquals(5888, FileHeader.RETIRED_COUNTERS_OFFSET);
        assertEquals(192, FileHeader.COUNTERS_STRIDE);
        assertEquals(6080, FileHeader.PROCESS_COUNTERS_OFFSET);
        assertEquals(18368, FileFormat.RECORD_LENGTH);
        assertEquals(64, FileFormat.GUARD_LINE);
        assertEquals(32, FileFormat.SEGMENT_GUARD);
        assertEquals(40, FileFormat.SEGMENT_COUNT);
        assertEquals(128, FileFormat.ENTRY_HEADER_LENGTH);
        assertEquals(128, EntryLayout.SHARDS_OFFSET);
    }
}
