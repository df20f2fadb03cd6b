package dev.floodgate.tools;

import dev.floodgate.tools.load.ScratchTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Where bench's scratch table goes when the preferred place (/dev/shm) cannot take it, and that it goes away. */
class ScratchTableTest
{
    @TempDir
    Path dir;

    @Test
    void shouldFallBackToTheTempDirectoryWhenThePreferredPlaceCannotTakeTheTable() throws Exception
    {
        final Path unusable = Files.writeString(dir.resolve("a-file-not-a-directory"), "x");
        final Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toRealPath();
        final Path table;
        try (ScratchTable scratch = ScratchTable.create(null, 1_000, "floodgate-scratchtest-", unusable))
        {
            table = scratch.file();
            assertTrue(Files.exists(table), "made: " + table);
            assertEquals(tmp, table.getParent().getParent().toRealPath(), "under the temp directory: " + table);
        }
        assertFalse(Files.exists(table.getParent()), "removed on close");
    }

    @Test
    void shouldMakeTheTableUnderThePreferredPlaceWhenItCan() throws Exception
    {
        final Path table;
        try (ScratchTable scratch = ScratchTable.create(null, 1_000, "floodgate-scratchtest-", dir))
        {
            table = scratch.file();
            assertEquals(dir, table.getParent().getParent(), table.toString());
        }
        assertFalse(Files.exists(table.getParent()), "removed on close");
    }
}
