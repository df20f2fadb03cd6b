package dev.floodgate.tools;

import dev.floodgate.testkit.ProcessTree;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** tools/floodgate, the launcher a user runs first. */
class LauncherTest
{
    @TempDir
    Path dir;

    @Test
    void theFirstBuildSaysHowLongItTakes() throws Exception
    {
        final Path launcher = Path.of("floodgate").toAbsolutePath();
        Assumptions.assumeTrue(Files.isExecutable(launcher), "tests run from the tools module");
        // a Maven that fails at once: the launcher must announce the build before it starts it
        final Path mvn = Files.writeString(dir.resolve("mvn"), "#!/bin/sh\nexit 1\n");
        Files.setPosixFilePermissions(mvn, PosixFilePermissions.fromString("rwxr-xr-x"));
        final Path err = dir.resolve("err");
        final ProcessBuilder builder = new ProcessBuilder("bash", launcher.toString(), "--help")
            .redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("FLOODGATE_REBUILD", "1");
        builder.environment().put("PATH", dir + ":" + System.getenv("PATH"));
        final Process process = builder.start();
        if (!process.waitFor(60, TimeUnit.SECONDS))
        {
            ProcessTree.kill(process);
        }
        assertEquals(3, process.exitValue(), "the failed build is reported");
        final String first = Files.readString(err).lines().findFirst().orElse("");
        assertTrue(first.startsWith("floodgate: building ") && first.contains("about a minute"), first);
    }
}
