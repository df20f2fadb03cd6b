package dev.floodgate.tools;

import dev.floodgate.internal.JvmFlags;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A live process that keeps the table guard makes readers give up with one line and exit 1, not hang. */
class BusyTableTest
{
    @TempDir
    Path dir;

    @Test
    void readerGivesUpOnAGuardHeldByALiveProcess() throws Exception
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
            final long start = System.nanoTime();
            final Cli.Result dump = Cli.run("dump", "--file", table.toString());
            assertEquals(1, dump.code(), dump::toString);
            assertTrue(dump.err().contains("table busy, try again") && dump.err().contains("process " +
                holder.pid()), dump.err());
            assertEquals(1, dump.err().strip().lines().count(), "one line: " + dump.err());
            assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30), "gave up in bounded time");
            holder.getOutputStream().close();
            assertTrue(holder.waitFor(30, TimeUnit.SECONDS), "the holder let go");
            assertEquals(0, holder.exitValue());
            final Cli.Result after = Cli.run("stats", "--file", table.toString(), "--json");
            assertEquals(0, after.code(), after::toString);
            assertFalse(after.out().contains("\"timeouts\":0"), "the give-up is counted: " + after.out());
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
