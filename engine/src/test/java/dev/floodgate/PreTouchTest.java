package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code file_pre_touch} (the default) maps every page of the table into the opening process, so a check that
 * inserts a new key takes no page fault, inside its segment's guard or anywhere; off, pages are mapped as checks
 * reach them. What a process has mapped of the file is its resident size for that file in {@code /proc/self/smaps}.
 */
class PreTouchTest
{
    /** 39 MB: a few huge pages (where tmpfs or the file system maps them) stay far below half of it. */
    private static final long CAPACITY = 100_000;

    @TempDir
    Path tempDir;

    @Test
    void shouldMapTheWholeTableWhenOpeningIt() throws Exception
    {
        // under /dev/shm where it exists, as a broker's table, so the printed times are tmpfs's
        final Path shm = Path.of("/dev/shm");
        final Path dir = Files.isDirectory(shm) && Files.isWritable(shm) ?
            Files.createTempDirectory(shm, "floodgate-pretouch-") : tempDir;
        try
        {
            mapAndMeasure(dir);
        }
        finally
        {
            if (dir != tempDir)
            {
                try (Stream<Path> files = Files.walk(dir))
                {
                    files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
                }
            }
        }
    }

    private static void mapAndMeasure(final Path dir) throws Exception
    {
        final Path lazy = dir.resolve("lazy.map");
        final Path touched = dir.resolve("touched.map");
        Floodgate.open(FloodgateConfig.builder().file(dir.resolve("first.map")).capacity(1_000).build()).close();
        final long start = System.nanoTime(); // after the JVM's first open, which pays Chronicle's one-time costs
        try (Floodgate off = Floodgate.open(FloodgateConfig.builder().file(lazy).capacity(CAPACITY).preTouch(false)
            .build()))
        {
            final long lazyOpened = System.nanoTime();
            try (Floodgate on = Floodgate.open(FloodgateConfig.builder().file(touched).capacity(CAPACITY).build()))
            {
                final long touchedOpened = System.nanoTime();
                System.out.printf("PRETOUCH tableMB=%.1f openMs(lazy)=%.0f openMs(pre-touched)=%.0f%n",
                    Files.size(touched) / 1e6, (lazyOpened - start) / 1e6, (touchedOpened - lazyOpened) / 1e6);
                assertResidency(lazy, touched, off, on);
            }
        }
    }

    private static void assertResidency(final Path lazy, final Path touched, final Floodgate off, final Floodgate on)
        throws IOException
    {
        final long size = Files.size(touched);
        final long lazyKb = residentKb(lazy);
        final long touchedKb = residentKb(touched);
        assertTrue(touchedKb * 1024 >= size * 9 / 10,
            "pre-touched: " + touchedKb + " kB of a " + size / 1024 + " kB table mapped");
        assertTrue(lazyKb * 1024 < Files.size(lazy) / 2,
            "not pre-touched: " + lazyKb + " kB of a " + Files.size(lazy) / 1024 + " kB table mapped at open");
        assertTrue(off.checkLimitInCaller("alice", Action.DASHBOARD_API) == Floodgate.ADMITTED &&
            on.checkLimitInCaller("alice", Action.DASHBOARD_API) == Floodgate.ADMITTED, "both tables work");
    }

    /** @return the kB of {@code file} this process has mapped, over all its mappings of it. */
    private static long residentKb(final Path file) throws IOException
    {
        final String name = file.toRealPath().toString();
        final List<String> lines = Files.readAllLines(Path.of("/proc/self/smaps"));
        long kb = 0;
        boolean ours = false;
        for (final String line : lines)
        {
            if (line.matches("[0-9a-f]+-[0-9a-f]+ .*")) // a mapping's first line: its range, ..., its path
            {
                ours = line.endsWith(" " + name);
            }
            else if (line.startsWith("Rss:") && ours)
            {
                kb += Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        return kb;
    }
}
