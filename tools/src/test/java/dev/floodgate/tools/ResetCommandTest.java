package dev.floodgate.tools;

import dev.floodgate.testkit.ChildJvm;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** reset against a table written by a separate JVM, including a table the caller may not write. */
class ResetCommandTest
{
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private Path table;

    @BeforeEach
    void writeTable() throws Exception
    {
        table = dir.resolve("t.map");
        ChildJvm.run(dir, TestWriter.class, table.toString());
    }

    @Test
    void resetClearsOneIdentifierAndSaysWhatWasThere() throws Exception
    {
        final Cli.Result result = Cli.run("reset", "10.0.0.1", "auth", "--file", table.toString());
        assertEquals(0, result.code(), result::toString);
        assertEquals("reset 10.0.0.1 auth: cleared bucket, blocked\n", result.out());
        assertEquals(0, JSON.readTree(Cli.run("dump", "--file", table.toString(), "--json", "--identifier",
            "10.0.0.1").out()).size(), "reset entries are not shown as live");
        final JsonNode tombstoned = JSON.readTree(Cli.run("dump", "--file", table.toString(), "--json",
            "--identifier", "10.0.0.1", "--tombstoned").out());
        assertEquals(2, tombstoned.size());
        for (final JsonNode entry : tombstoned)
        {
            assertTrue(entry.get("tombstoned").asBoolean());
        }
        assertEquals("reset 10.0.0.1 auth: nothing to clear (no state)\n",
            Cli.run("reset", "10.0.0.1", "auth", "--file", table.toString()).out());
        assertEquals("reset alice publish: cleared window, blocked\n",
            Cli.run("reset", "alice", "PUBLISH", "--file", table.toString()).out());
        assertEquals("reset \\x1b[2Jevil\\x07 auth: cleared bucket, blocked\n",
            Cli.run("reset", TestWriter.EVIL, "auth", "--file", table.toString()).out());
        assertEquals(1, JSON.readTree(Cli.run("stats", "--file", table.toString(), "--json").out())
            .get("liveEntries").asLong(), "only the long identifier's bucket is left");
    }

    @Test
    void resetRefusesAFileTheCallerCannotWrite() throws Exception
    {
        final boolean immutable = makeUnwritable(table);
        try
        {
            Assumptions.assumeFalse(Files.isWritable(table), "cannot make a file unwritable for this user here");
            final Cli.Result result = Cli.run("reset", "10.0.0.1", "auth", "--file", table.toString());
            assertEquals(1, result.code(), result::toString);
            assertTrue(result.err().contains("not writable by this user, so nothing was reset"), result.err());
            assertEquals(1, result.err().strip().lines().count(), "one line: " + result.err());
        }
        finally
        {
            makeWritable(table, immutable);
        }
        final JsonNode ip = JSON.readTree(Cli.run("dump", "--file", table.toString(), "--json", "--identifier",
            "10.0.0.1").out());
        assertEquals(2, ip.size(), "the refused reset changed nothing");
    }

    /**
     * Root ignores permission bits, so as root the file is made immutable ({@code chattr +i}, which needs root
     * and a filesystem that supports it); otherwise its write bits are cleared.
     *
     * @return true when it was made immutable.
     */
    static boolean makeUnwritable(final Path file) throws IOException, InterruptedException
    {
        if ("root".equals(System.getProperty("user.name")))
        {
            return chattr("+i", file);
        }
        assertTrue(file.toFile().setWritable(false, false));
        return false;
    }

    static void makeWritable(final Path file, final boolean immutable)
        throws IOException, InterruptedException
    {
        if (immutable)
        {
            assertTrue(chattr("-i", file), "could not clear the immutable flag of " + file);
        }
        else
        {
            file.toFile().setWritable(true, true);
        }
    }

    private static boolean chattr(final String flag, final Path file) throws IOException, InterruptedException
    {
        final Process process = new ProcessBuilder("chattr", flag, file.toString()).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!process.waitFor(10, TimeUnit.SECONDS))
        {
            process.destroyForcibly();
            return false;
        }
        return process.exitValue() == 0;
    }
}
