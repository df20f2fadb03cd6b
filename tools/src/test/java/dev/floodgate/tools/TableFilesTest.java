package dev.floodgate.tools;

import dev.floodgate.tools.table.TableFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The file checks the CLI makes before it maps anything. */
class TableFilesTest
{
    @TempDir
    Path dir;

    @Test
    void writableCheckRefusesWithExitCodeOne() throws Exception
    {
        final CliException refused = assertThrows(CliException.class,
            () -> TableFiles.requireWritable(dir.resolve("nowhere").resolve("t.map")));
        assertEquals(ExitCode.REFUSED, refused.exitCode());
        TableFiles.requireWritable(Files.createFile(dir.resolve("t.map")));
    }

    @Test
    void existenceCheckRefusesWithExitCodeThree()
    {
        assertEquals(ExitCode.FILE, assertThrows(CliException.class,
            () -> TableFiles.requireExisting(dir.resolve("missing"))).exitCode());
        assertEquals(ExitCode.FILE, assertThrows(CliException.class,
            () -> TableFiles.requireExisting(dir)).exitCode());
    }
}
