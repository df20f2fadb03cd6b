package dev.floodgate.tools;

import dev.floodgate.JvmFlags;
import dev.floodgate.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A live process that keeps the table guard does not stop the readers: they never take it. */
class BusyTableTest
{
    @TempDir
    Path dir;

    @Test
    void readersRunWhileALiveProcessHoldsTheGuardAndShowTheHolder() throws Exception
    {
        final Path table = dir.resolve("t.map");
        ChildJvm.run(dir, TestWriter.class, table.toString());
        final Process holder = new ProcessBuilder(JvmFlags.javaCommand(GuardHolder.class.getName(),
            System.getProperty("java.class.path"), List.of("-Xmx128m"), List.of(table.toString())))
            .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try
        {
            final BufferedReader out = new BufferedReader(new InputStreamReader(holder.getInputStream(),
                StandardCharsets.UTF_8));
            assertEquals("HELD", out.readLine(), "the holder took the guard");
            final Cli.Result dump = Cli.run("dump", "--file", table.toString());
            assertEquals(0, dump.code(), dump::toString);
            assertTrue(dump.out().contains("7 entries"), dump::toString);
            final Cli.Result stats = Cli.run("stats", "--file", table.toString(), "--json");
            assertEquals(0, stats.code(), stats::toString);
            assertTrue(stats.out().contains("\"segmentsHeld\":"), stats.out());
            assertTrue(!stats.out().contains("\"segmentsHeld\":0"), "shows the held segments: " + stats.out());
            assertTrue(stats.out().contains("\"timeouts\":0"), "no reader waited for the guard: " + stats.out());
            holder.getOutputStream().close();
            assertTrue(holder.waitFor(30, TimeUnit.SECONDS), "the holder let go");
            assertEquals(0, holder.exitValue());
        }
        finally
        {
            if (holder.isAlive())
            {
                holder.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
