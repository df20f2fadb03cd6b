package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.Signals;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JVM killed while it builds a new table (its private {@code .<name>.*.creating} file exists, the table is not
 * linked yet) leaves that file behind, allocated whole (never sparse): under {@code /dev/shm} it holds the table's
 * size in RAM until reboot, and no later open removes it. A broker killed during its first start (an orchestrator's
 * start timeout, a crash loop) leaks a table's worth of memory each time.
 */
@Timeout(180)
class KilledCreateTest
{
    /** Child: opens (creates) a large table, then says OPENED. */
    public static final class Creator
    {
        public static void main(final String[] args)
        {
            try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(Path.of(args[0]))
                .capacity(Long.parseLong(args[1])).preTouch(false).build()))
            {
                System.out.println("OPENED");
            }
        }
    }

    private static List<Path> creating(final Path dir) throws Exception
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.filter(p -> p.getFileName().toString().endsWith(".creating")).collect(Collectors.toList());
        }
    }

    @Test
    void shouldNotLeaveATableSizedTempFileInDevShmAfterACreatorWasKilled() throws Exception
    {
        final Path shm = Path.of("/dev/shm");
        final Path dir = Files.isDirectory(shm) && Files.isWritable(shm) ?
            Files.createTempDirectory(shm, "floodgate-killedcreate-") : Files.createTempDirectory("floodgate-kc-");
        final Path file = dir.resolve("t.map");
        try
        {
            boolean killedMidCreate = false;
            for (int attempt = 0; attempt < 5 && !killedMidCreate; attempt++)
            {
                try (ChildJvm child = ChildJvm.start(Creator.class, file.toString(), "400000"))
                {
                    final long deadline = System.nanoTime() + 60_000_000_000L;
                    while (creating(dir).stream().allMatch(p -> p.toFile().length() == 0) && !Files.exists(file) &&
                        System.nanoTime() < deadline)
                    {
                        Thread.onSpinWait(); // until the child's private temporary table has its length
                    }
                    if (Files.exists(file))
                    {
                        // it built and linked the table between two looks (a fast host): it exits, try again
                        child.awaitExit(30);
                        Files.delete(file);
                        continue;
                    }
                    Signals.send("STOP", child.pid()); // freeze it at once: mid-build unless it linked already
                    killedMidCreate = !creating(dir).isEmpty() && !Files.exists(file);
                    if (killedMidCreate)
                    {
                        // another JVM starts meanwhile: the creator lives (stopped), and its file must stay
                        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000)
                            .build()))
                        {
                            assertEquals(1, creating(dir).size(), "a live creator's temporary table was removed");
                        }
                    }
                    Signals.send("KILL", child.pid());
                    child.awaitExit(30);
                }
                if (!killedMidCreate)
                {
                    Files.deleteIfExists(file); // it finished before the freeze: try again
                    for (final Path p : creating(dir))
                    {
                        Files.deleteIfExists(p);
                    }
                }
            }
            assertTrue(killedMidCreate, "could not freeze the creator mid-build in 5 tries");
            final long leftover = creating(dir).stream().mapToLong(p -> p.toFile().length()).sum();
            assertTrue(leftover > 0, "the frozen creator's temporary table has its length");
            // the next start (the table exists now: this JVM made it meanwhile) removes the dead creator's file
            try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).build()))
            {
                assertEquals(Floodgate.ADMITTED, gate.checkLimit("10.0.0.1", Action.AUTH));
            }
            assertEquals(List.of(), creating(dir), "a killed creator's temporary table (" + leftover +
                " bytes of " + dir + ", RAM under /dev/shm) is left behind by the next open");
        }
        finally
        {
            try (Stream<Path> files = Files.walk(dir))
            {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }
}
