package dev.floodgate.store;

import dev.floodgate.FloodgateFileException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A lock file that cannot be mapped (shorter than its length, read by a reader that never writes it) must leave no
 * descriptor of it open in this JVM. A leaked channel is closed by its cleaner whenever a GC finds it, and closing
 * any descriptor of a file drops every POSIX lock the process holds on it: the slot locks of a table this JVM
 * attached to later, which would make it read as dead to the node (found by a review of the open path).
 */
@Timeout(60)
class LockFileLeakTest
{
    @TempDir
    Path dir;

    @Test
    void shouldCloseTheChannelOfALockFileItCannotMap() throws IOException
    {
        final Path table = dir.resolve("t.map");
        final Path lock = SlotLocks.lockFileOf(table);
        Files.write(lock, new byte[10]); // truncated
        assertThrows(FloodgateFileException.class, () -> SlotLocks.acquireReadOnly(table));
        assertEquals(0, descriptorsOf(lock.toRealPath()), "descriptors of " + lock + " left open");
    }

    private static long descriptorsOf(final Path file) throws IOException
    {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd")))
        {
            return fds.filter(fd ->
            {
                try
                {
                    return Files.readSymbolicLink(fd).equals(file);
                }
                catch (final IOException | UnsupportedOperationException gone)
                {
                    return false; // the listing's own descriptor, closed by now
                }
            }).count();
        }
    }
}
