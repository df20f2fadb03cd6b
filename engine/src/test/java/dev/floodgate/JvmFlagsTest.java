package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import dev.floodgate.testkit.OpenProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broker JVM started without the engine's JVM flags fails at {@code Floodgate.open} with one message naming
 * the missing flags and where to find them all, before Chronicle Map is touched (before: a 26-line Chronicle
 * stack trace that never named Floodgate or its flags, and the next missing flag only after fixing the first).
 */
@Timeout(120)
class JvmFlagsTest
{
    @TempDir
    Path dir;

    @Test
    void shouldNameEveryMissingFlagWhenStartedWithNone() throws Exception
    {
        final Path file = dir.resolve("none.map");
        try (ChildJvm child = ChildJvm.startWithFlags(List.of(), OpenProbe.class, file.toString()))
        {
            final String line = child.awaitLine("REFUSED ", 60);
            assertTrue(line.contains("--add-opens=java.base/java.lang=ALL-UNNAMED"), line);
            assertTrue(line.contains("--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED"), line);
            assertTrue(line.contains("dev/floodgate/jvm.flags"), "says where the flags are: " + line);
            assertFalse(line.contains("jdk.unsupported/sun.misc"), "sun.misc is exported by default: " + line);
        }
        assertFalse(Files.exists(file), "nothing was created");
    }

    @Test
    void shouldNameJustTheOneFlagLeftOut() throws Exception
    {
        final String left = "--add-opens=java.base/java.util=ALL-UNNAMED";
        final List<String> flags = new ArrayList<>(JvmFlags.required());
        assertTrue(flags.remove(left), "the premise: the engine needs " + left);
        try (ChildJvm child = ChildJvm.startWithFlags(flags, OpenProbe.class, dir.resolve("one.map").toString()))
        {
            final String line = child.awaitLine("REFUSED ", 60);
            assertTrue(line.contains("missing 1: " + left + "."), line);
        }
    }

    @Test
    void shouldOpenWithEveryFlag() throws Exception
    {
        assertEquals(List.of(), JvmFlags.missing(JvmFlags.required(), getClass().getClassLoader().getUnnamedModule()),
            "this test JVM runs with the flags (Surefire's argLine)");
        try (ChildJvm child = ChildJvm.startWithFlags(JvmFlags.required(), OpenProbe.class,
            dir.resolve("all.map").toString()))
        {
            assertEquals("OPENED", child.awaitLine("OPENED", 60));
        }
    }
}
