package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A table removed from under a live JVM (an operator's {@code rm}, a tmp cleaner, systemd's {@code RemoveIPC} on
 * {@code /dev/shm}) stays mapped in it, and the next JVM to open the path silently makes a new, empty table beside
 * the lock file whose slot the live JVM still holds: two tables, each enforcing the whole quota, and the node
 * admits the limit once per table. The lock file says a process is attached; the opener does not look.
 */
@Timeout(120)
class RemovedTableTest
{
    @TempDir
    Path dir;

    /** Child: opens the table, makes 10 checks of one key, prints ADMITTED n (or REFUSED message). */
    public static final class Checker
    {
        public static void main(final String[] args)
        {
            try (Floodgate gate = Floodgate.open(config(Path.of(args[0]))))
            {
                int admitted = 0;
                for (int i = 0; i < 10; i++)
                {
                    admitted += gate.checkLimit("10.0.0.1", Action.AUTH) == Floodgate.ADMITTED ? 1 : 0;
                }
                System.out.println("RESULT ADMITTED " + admitted);
            }
            catch (final FloodgateFileException ex)
            {
                System.out.println("RESULT REFUSED " + ex.getMessage());
            }
        }
    }

    static FloodgateConfig config(final Path file)
    {
        return FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.AUTH, 3, FloodgateConfig.MAX_WINDOW_MS).build();
    }

    @Test
    void shouldNotMakeASecondTableWhileAProcessIsStillAttachedToTheRemovedOne() throws Exception
    {
        final Path file = dir.resolve("t.map");
        final String[] refusal = new String[1];
        try (Floodgate first = Floodgate.open(config(file)))
        {
            int admitted = 0;
            for (int i = 0; i < 10; i++)
            {
                admitted += first.checkLimit("10.0.0.1", Action.AUTH) == Floodgate.ADMITTED ? 1 : 0;
            }
            Files.delete(file); // removed while `first` is attached and holds its slot in t.map's lock file
            try (ChildJvm other = ChildJvm.start(Checker.class, file.toString()))
            {
                final String line = other.awaitLine("RESULT ", 60).substring("RESULT ".length());
                other.awaitExit(30);
                refusal[0] = line.startsWith("REFUSED ") ? line : null;
                if (line.startsWith("ADMITTED "))
                {
                    admitted += Integer.parseInt(line.substring("ADMITTED ".length()).trim());
                }
            }
            assertTrue(admitted <= 3, "limit 3 per window, the node admitted " + admitted + ": the other JVM " +
                "re-created the removed table while this one was still attached to it, and each enforces its own");
            assertTrue(refusal[0] != null && refusal[0].contains("still have the table that was removed"),
                "the other JVM's open says why it is refused: " + refusal[0]);
        }
        try (ChildJvm next = ChildJvm.start(Checker.class, file.toString()))
        {
            assertEquals("RESULT ADMITTED 3", next.awaitLine("RESULT ", 60).strip(),
                "once nobody has the removed table open, a new one is made");
            next.awaitExit(30);
        }
    }
}
