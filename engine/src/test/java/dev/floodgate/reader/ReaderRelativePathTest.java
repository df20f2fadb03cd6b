package dev.floodgate.reader;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.FloodgateFileException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@link FloodgateReader#open} takes a relative path (it only reads, so the working directory's table is as good
 * as any), but it reported the path as given: "t.map: no such file" said nothing of which directory it looked in,
 * and {@link FloodgateReader#file()} of a reader opened so was relative. Both name the absolute path it opened.
 */
@Timeout(60)
class ReaderRelativePathTest
{
    @TempDir
    Path dir;

    private final Path workingDirectory = Path.of("").toAbsolutePath();

    /** @return {@code file} relative to the working directory, as a user in it would type it. */
    private Path typed(final Path file)
    {
        final Path relative = workingDirectory.relativize(file);
        assertFalse(relative.isAbsolute(), relative::toString);
        return relative;
    }

    @Test
    void shouldReportTheAbsolutePathOfATableOpenedByARelativeOne()
    {
        final Path table = dir.resolve("t.map");
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(table).capacity(1_000).build()))
        {
            final Path typed = typed(table);
            try (FloodgateReader reader = FloodgateReader.open(typed))
            {
                assertEquals(typed.toAbsolutePath(), reader.file());
                assertEquals(1, reader.attachedProcesses(), "reads the lock file beside the table it opened");
            }
        }
    }

    @Test
    void shouldNameTheAbsolutePathInEveryRefusal() throws Exception
    {
        final Path missing = typed(dir.resolve("missing.map"));
        final FloodgateFileException none = assertThrows(FloodgateFileException.class,
            () -> FloodgateReader.open(missing));
        assertEquals(missing.toAbsolutePath() + ": no such file", none.getMessage());
        assertEquals(missing.toAbsolutePath(), none.file());
        final Path empty = typed(Files.createFile(dir.resolve("empty.map")));
        assertEquals(empty.toAbsolutePath() + ": empty (zero length): not a Floodgate table",
            assertThrows(FloodgateFileException.class, () -> FloodgateReader.open(empty)).getMessage());
        final Path foreign = typed(Files.write(dir.resolve("foreign.map"), new byte[4096]));
        final String refusal = assertThrows(FloodgateFileException.class, () -> FloodgateReader.open(foreign))
            .getMessage();
        assertEquals(foreign.toAbsolutePath() + ": ", refusal.substring(0, foreign.toAbsolutePath().toString()
            .length() + 2), refusal);
    }
}
