package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link Floodgate#openAdopting} is documented to map an existing file, as an operator's tool does. Given a path with
 * no table (a typo, or a table not made yet) it creates a whole new table there (about 390 bytes per entry of
 * capacity, 39 MB at the default, in {@code /dev/shm}) and its lock file, then refuses with "has no policy yet",
 * leaving both behind: the error does not say the file did not exist, and the next broker started on that path
 * finds a table an operator's tool made.
 */
@Timeout(60)
class AdoptMissingFileTest
{
    @TempDir
    Path dir;

    @Test
    void shouldRefuseAMissingFileWithoutCreatingIt()
    {
        final Path file = dir.resolve("typo.map");
        final FloodgateFileException error = assertThrows(FloodgateFileException.class,
            () -> Floodgate.openAdopting(FloodgateConfig.builder().file(file).capacity(1_000).preTouch(false)
                .build()).close());
        assertFalse(Files.exists(file), "openAdopting of a missing path created a table there and left it: " +
            error.getMessage());
        assertTrue(error.getMessage().contains("no such file") || error.getMessage().contains("does not exist"),
            error.getMessage());
    }
}
