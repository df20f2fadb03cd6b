package dev.floodgate;

import dev.floodgate.testkit.OpenerThread;
import dev.floodgate.testkit.PreviousBootTable;
import dev.floodgate.testkit.RivalBuild;
import dev.floodgate.testkit.SmallTmpfs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A table from a previous boot is replaced by a build outside the replace lock, so two JVMs starting together after a
 * reboot each build a replacement, and the first rename wins. Where the file system has room for the old table and
 * one new one, not two new ones (which the replacement under the lock, one build at a time, needed), the second build
 * failed at once and that JVM did not start ("cannot be created: Not enough space to fallocate"), though the first
 * JVM's replacement was about to be there: the fix that makes a failed creator wait for a live rival's table did not
 * reach the replacer. Found by review; fails before the fix. Needs root (a small tmpfs is mounted for it); skipped
 * elsewhere.
 *
 * <p>Deterministic: the first replacer is a child JVM under the debugger, stopped once its replacement is allocated
 * (at the entry of {@code FileHeader.initialise}, inside its build), while this JVM opens the table.
 */
@Timeout(180)
class ReplacersShareRoomTest
{
    private static final long CAPACITY = 20_000; // a table of about 8 MB

    @TempDir
    Path dir;

    @Test
    void shouldStartBesideARivalReplacerWhenTheFileSystemHasRoomForOneReplacement() throws Exception
    {
        try (SmallTmpfs tmpfs = SmallTmpfs.mount(dir, 20))
        {
            final Path file = tmpfs.resolve("fg").resolve("t.map");
            PreviousBootTable.create(file, CAPACITY);
            final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(CAPACITY)
                .limit(Action.AUTH, 1, FloodgateConfig.MAX_WINDOW_MS).build();
            final RivalBuild rival = RivalBuild.openBeside(config,
                gate -> assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.1", Action.AUTH)));
            final OpenerThread opener = rival.opener();
            assertTrue(opener != null, "the child built a replacement: " + rival.log());
            opener.join(60_000);
            assertFalse(opener.isAlive(), "the open ended once the rival's replacement was there");
            assertNull(opener.failure(), () -> "the open failed: " + opener.failure());
            assertTrue(rival.log().contains("OPENED " + opener.attachedInode() + " true"),
                "both use the rival's table: " + rival.log());
        }
    }
}
