package dev.floodgate;

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

    /** Child: opens (and so creates) the table at args[0], then says which file it attached to. */
    public static final class Creator
    {
        public static void main(final String[] args) throws Exception
        {
            final Path file = Path.of(args[0]);
            try (QuotaTable table = QuotaTable.open(file, CAPACITY, 2, false, System.nanoTime()))
            {
                System.out.println("OPENED " + Files.getAttribute(file, "unix:ino") + " " + table.atItsPath());
            }
        }
    }

    private static boolean run(final String... command) throws Exception
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
        return p.waitFor() == 0;
    }

    @Test
    void shouldStartBesideARivalCreatorWhenTheFileSystemHasRoomForOneTable() throws Exception
    {
        final Path mount = Files.createDirectory(dir.resolve("mnt"));
        assumeTrue(run("mount", "-t", "tmpfs", "-o", "size=12m", "tmpfs", mount.toString()), "no tmpfs mount here");
        try
        {
            final Path file = mount.resolve("fg").resolve("t.map");
            final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(CAPACITY)
                .limit(Action.AUTH, 1, FloodgateConfig.MAX_WINDOW_MS).build();
            final AtomicReference<Throwable> failed = new AtomicReference<>();
            final AtomicReference<Object> attached = new AtomicReference<>();
            final Thread[] opener = {null};
            final String log;
            try (DebuggedChild creator = DebuggedChild.start(Creator.class, List.of(file.toString())))
            {
                creator.runStoppingAtEntry("dev.floodgate.store.FileHeader", "initialise", hit ->
                {
                    if (opener[0] != null)
                    {
                        return;
                    }
                    // the rival has its table's room; a broker starts beside it
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
                log = creator.transcript();
            }
            assertTrue(opener[0] != null, "the child built the table: " + log);
            opener[0].join(60_000);
            assertFalse(opener[0].isAlive(), "the open ended once the rival's table was there");
            assertNull(failed.get(), () -> "the open failed: " + failed.get());
            assertTrue(log.contains("OPENED " + attached.get() + " true"), "both use the rival's table: " + log);
        }
        finally
        {
            run("umount", "-l", mount.toString());
        }
    }
}
