package dev.floodgate;

import dev.floodgate.store.FileHeader;
import dev.floodgate.store.QuotaTable;
import dev.floodgate.testkit.DebuggedChild;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

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

    private static boolean run(final String... command) throws Exception
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
        return p.waitFor() == 0;
    }

    @Test
    void shouldStartBesideARivalReplacerWhenTheFileSystemHasRoomForOneReplacement() throws Exception
    {
        final Path mount = Files.createDirectory(dir.resolve("mnt"));
        assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=20m", "tmpfs", mount.toString()), "no tmpfs mount here");
        try
        {
            final Path file = mount.resolve("fg").resolve("t.map");
            try (QuotaTable table = QuotaTable.open(file, CAPACITY, 2, false, 0))
            {
                table.header().buffer().putLong(FileHeader.BOOT_ID_OFFSET, 12345L); // written under another boot
            }
            final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(CAPACITY)
                .limit(Action.AUTH, 1, FloodgateConfig.MAX_WINDOW_MS).build();
            final AtomicReference<Throwable> failed = new AtomicReference<>();
            final AtomicReference<Object> attached = new AtomicReference<>();
            final Thread[] opener = {null};
            final String log;
            try (DebuggedChild replacer = DebuggedChild.start(CreatorsShareRoomTest.Creator.class,
                List.of(file.toString())))
            {
                replacer.runStoppingAtEntry("dev.floodgate.store.FileHeader", "initialise", hit ->
                {
                    if (opener[0] != null)
                    {
                        return;
                    }
                    // the rival has its replacement's room; a broker starts beside it
                    opener[0] = new Thread(() ->
                    {
                        try (Floodgate gate = Floodgate.open(config))
                        {
                            assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.1", Action.AUTH));
                            attached.set(Files.getAttribute(file, "unix:ino"));
                        }
                        catch (final Throwable ex)
                        {
                            failed.set(ex);
                        }
                    }, "opener");
                    opener[0].start();
                    opener[0].join(5_000); // long enough to fail; then the rival goes on
                });
                log = replacer.transcript();
            }
            assertTrue(opener[0] != null, "the child built a replacement: " + log);
            opener[0].join(60_000);
            assertFalse(opener[0].isAlive(), "the open ended once the rival's replacement was there");
            assertNull(failed.get(), () -> "the open failed: " + failed.get());
            assertTrue(log.contains("OPENED " + attached.get() + " true"), "both use the rival's table: " + log);
        }
        finally
        {
            run("umount", "-l", mount.toString());
        }
    }
}
