package dev.floodgate.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code removeDeadTemps} picks a table's temporary files by the prefix {@code .<name>.} and reads the creator index
 * from what follows: a neighbouring table whose name is {@code <name>.c<k>} in the same directory has temporary files
 * {@code .<name>.c<k>.c<j>.*.creating}, which match, and are judged by creator lock k of the wrong lock file. So an
 * open of table {@code t} deletes the temporary table a live process is building for {@code t.c1} (its creator lock
 * held in {@code t.c1.lock}), and that process's link into place then fails.
 */
@Timeout(60)
class NeighbourTempTest
{
    @TempDir
    Path dir;

    @Test
    void shouldNotRemoveTheTempFileOfALiveCreatorOfAnotherTable() throws Exception
    {
        final Path neighbour = dir.resolve("t.c1");
        final SlotLocks neighbourLocks = SlotLocks.acquire(neighbour, false);
        try
        {
            // what a live creator of t.c1 holds while it builds: its creator lock, and a temp named after it
            final int creator = neighbourLocks.building().claimCreator();
            final Path temp = Files.createTempFile(dir, ".t.c1.c" + creator + ".", ".creating");
            try (QuotaTable table = QuotaTable.open(dir.resolve("t"), 1_000, 1, false, System.nanoTime()))
            {
                assertEquals(1_000, table.capacity());
            }
            assertTrue(Files.exists(temp), "opening table t removed " + temp.getFileName() + ", the temporary " +
                "table of a live creator of t.c1 (creator lock " + creator + " held in t.c1.lock)");
            neighbourLocks.building().unclaimCreator(creator);
        }
        finally
        {
            neighbourLocks.release();
        }
    }
}
