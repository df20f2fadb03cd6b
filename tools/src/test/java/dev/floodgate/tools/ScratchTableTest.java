package dev.floodgate.tools;

import dev.floodgate.tools.load.ScratchTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

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

    /**
     * A command stopped by SIGTERM while a worker JVM was still starting removes its table before the worker opens
     * it; a worker that then opened the path made the table again, left under /dev/shm after every process was
     * gone. A worker maps the table its command made, never a new one.
     */
    @Test
    void shouldNeverMakeATableInAWorker() throws Exception
    {
        final Path removed = dir.resolve("removed").resolve("floodgate.map");
        final Cli.Result result = CliProcess.run(dir, Map.of(), "worker", "--file", removed.toString(),
            "--capacity", "1000", "--lane", "bucket,publish,1,0,user,1", "--worker", "1");
        assertEquals(1, result.code(), result.err());
        assertTrue(result.err().contains(removed + ": no table there"), result.err());
        assertFalse(Files.exists(removed.getParent()), "nothing made where the table was");
    }
}
