package dev.floodgate.tools;

import dev.floodgate.FloodgateConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The CLI's default table file follows the engine's rule for a key set both ways, or blank. */
class FileOptionTest
{
    @Test
    void aPropertyWinsOverTheVariable()
    {
        assertEquals(Path.of("/p/t.map"), FileOption.defaultFile(" /p/t.map ", "/e/t.map"));
        assertEquals(Path.of("/e/t.map"), FileOption.defaultFile(null, "/e/t.map"));
    }

    @Test
    void aBlankPropertyMeansTheDefaultAsTheEngineReadsIt()
    {
        // the engine does not fall back to the variable when the property is set blank; the CLI named another file
        assertEquals(FloodgateConfig.defaultFile(), FileOption.defaultFile(" ", "/e/t.map"));
        assertEquals(FloodgateConfig.defaultFile(), FileOption.defaultFile(null, ""));
        assertEquals(FloodgateConfig.defaultFile(), FileOption.defaultFile(null, null));
    }

    /** The engine refuses a relative file; the CLI resolves its own against the directory it runs in. */
    @Test
    void aRelativeValueIsResolvedAgainstTheWorkingDirectory()
    {
        final Path here = Path.of("").toAbsolutePath();
        assertEquals(here.resolve("rel/t.map"), FileOption.defaultFile(null, "rel/t.map"));
        assertEquals(here.resolve("t.map"), FileOption.defaultFile(" t.map ", "/e/t.map"));
    }

    /**
     * The engine's own default is relative on a host without /dev/shm whose java.io.tmpdir is relative; the CLI passed
     * it on as it was, so {@code reset} and {@code policy set} were refused naming a {@code file} the operator never
     * set. It is resolved as a value of the variable is.
     */
    @Test
    void aRelativeEngineDefaultIsResolvedAgainstTheWorkingDirectory()
    {
        final Path here = Path.of("").toAbsolutePath();
        final Path relative = Path.of("tmp", "floodgate", "floodgate.map");
        assertEquals(here.resolve(relative), FileOption.defaultFile(null, null, relative));
        assertEquals(here.resolve(relative), FileOption.defaultFile(" ", "/e/t.map", relative));
        assertEquals(Path.of("/e/t.map"), FileOption.defaultFile(null, "/e/t.map", relative));
    }
}
