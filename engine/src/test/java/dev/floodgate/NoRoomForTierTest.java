package dev.floodgate;

import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.SmallTmpfs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A segment whose first tier is full takes a new tier, which Chronicle allocates by growing the file: on a file system
 * with no room left (a container's small {@code /dev/shm}, shared with other programs) the check threw a
 * {@code RuntimeException} saying only "ChronicleMap{name=floodgate, file=...}" to the broker, and the failed
 * allocation left the file grown but not backed, so the next check that needed a tier wrote into pages the file system
 * could not give and threw {@code InternalError} (a SIGBUS in an unsafe access). Found by review; fails before the
 * fix. Such a check is a table-full event now, as when Chronicle runs out of tiers, and checks resume once there is
 * room. Needs root (a small tmpfs is mounted for it); skipped elsewhere.
 */
@Timeout(120)
class NoRoomForTierTest
{
    private static final long CAPACITY = 1_500;

    @TempDir
    Path dir;

    @Test
    void shouldAnswerChecksThatNeedATierAsTableFullWhenTheFileSystemIsFull() throws Exception
    {
        try (SmallTmpfs tmpfs = SmallTmpfs.mount(dir, 16))
        {
            final Path file = tmpfs.resolve("t.map");
            // 64 shards: a window entry takes 4 kB where the table was sized for an average of 1.5 kB, so windows
            // overflow their segments' first tiers long before the capacity is reached
            QuotaTable.open(file, CAPACITY, 64, false, System.nanoTime()).close();
            final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(CAPACITY)
                .limit(Action.PUBLISH, 10, 60_000).build();
            try (Floodgate gate = Floodgate.open(config))
            {
                final Path filler = tmpfs.resolve("filler");
                fill(filler); // another program takes what is left of the file system
                int refused = 0;
                for (int i = 0; i < CAPACITY; i++)
                {
                    try
                    {
                        refused += gate.checkLimitInCaller("user-" + i, Action.PUBLISH) == Floodgate.ADMITTED ? 0 : 1;
                    }
                    catch (final RuntimeException | Error ex)
                    {
                        fail("check " + i + " of a new user threw, with " + Files.size(file) + " bytes of table", ex);
                    }
                }
                assertTrue(refused > 0, "some new users needed a tier");
                final Stats stats = gate.stats();
                assertTrue(stats.tableFull().get(Action.PUBLISH) > 0, "table-full events counted");
                // each table-full event asks the janitor for a pass, whose scan may hold a segment past the 50 ms
                assertEquals(refused, stats.tableFull().get(Action.PUBLISH) + stats.degraded().get(Action.PUBLISH),
                    "each refusal a table-full event or an unreachable check");
                Files.delete(filler);
                int admitted = 0;
                for (int i = 0; i < refused; i++)
                {
                    admitted += gate.checkLimitInCaller("later-" + i, Action.PUBLISH) == Floodgate.ADMITTED ? 1 : 0;
                }
                assertEquals(refused, admitted, "with room again, new users are admitted");
            }
        }
    }

    private static void fill(final Path filler) throws IOException
    {
        try (FileChannel channel = FileChannel.open(filler, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))
        {
            final ByteBuffer block = ByteBuffer.allocate(1 << 16);
            while (true)
            {
                block.clear();
                channel.write(block);
            }
        }
        catch (final IOException full)
        {
            if (!String.valueOf(full.getMessage()).contains("No space left"))
            {
                throw full;
            }
        }
    }
}
