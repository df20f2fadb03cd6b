package dev.floodgate;

import dev.floodgate.testkit.OpenerThread;
import dev.floodgate.testkit.SmallTmpfs;
import dev.floodgate.testkit.RivalBuild;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Two JVMs starting together on a missing table each build one in a temporary file, and the first to link it wins:
 * where the file system has room for one table and not two (a container's 64 MB {@code /dev/shm} holds one table of
 * the default capacity, 39 MB), the second build failed at once and that JVM did not start ("cannot be created: Not
 * enough space to fallocate"), though the first JVM's table was about to be there. Found by review; fails before the
 * fix. Needs root (a small tmpfs is mounted for it); skipped elsewhere.
 *
 * <p>Deterministic: the first creator is a child JVM under the debugger, stopped once its table is allocated (at the
 * entry of {@code FileHeader.initialise}, inside its build), while this JVM opens the table.
 */
@Timeout(180)
class CreatorsShareRoomTest
{
    private static final long CAPACITY = 20_000; // a table of about 8 MB

    @TempDir
    Path dir;

    @Test
    void shouldStartBesideARivalCreatorWhenTheFileSystemHasRoomForOneTable() throws Exception
    {
        try (SmallTmpfs tmpfs = SmallTmpfs.mount(dir, 12))
        {
            final Path file = tmpfs.resolve("fg").resolve("t.map");
            final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(CAPACITY)
                .limit(Action.AUTH, 1, FloodgateConfig.MAX_WINDOW_MS).build();
            final RivalBuild rival = RivalBuild.openBeside(config,
                gate -> assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.1", Action.AUTH)));
            final OpenerThread opener = rival.opener();
            assertTrue(opener != null, "the child built the table: " + rival.log());
            opener.join(60_000);
            assertFalse(opener.isAlive(), "the open ended once the rival's table was there");
            assertNull(opener.failure(), () -> "the open failed: " + opener.failure());
            assertTrue(rival.log().contains("OPENED " + opener.attachedInode() + " true"),
                "both use the rival's table: " + rival.log());
        }
    }
}
