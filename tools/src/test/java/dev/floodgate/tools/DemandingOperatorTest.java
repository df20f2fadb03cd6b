package dev.floodgate.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every command with bad input, as a demanding operator types it on a fresh clone (each failed before its fix):
 * each test states what they saw. The contract: the error names the value and what was expected, exits with the
 * documented code (1 refused, among them not writable; 2 usage; 3 a missing, unreadable or foreign file), prints
 * no stack trace and changes nothing.
 */
@Timeout(120)
class DemandingOperatorTest
{
    @TempDir
    Path dir;

    /**
     * {@code help worker} printed the usage of the hidden {@code worker} command (internal: the JVMs demo and
     * bench start), exit 0, which neither the usage nor a mistyped command lists. It now answers as for a command
     * that does not exist; {@code worker} itself still runs (demo and bench start it), and its errors no longer
     * point at a {@code --help} it does not have.
     */
    @Test
    void theHiddenWorkerCommandHasNoHelp()
    {
        final Cli.Result help = Cli.run("help", "worker");
        assertEquals(2, help.code(), help::toString);
        assertEquals("", help.out(), help::toString);
        assertEquals("floodgate: no help for 'worker': not a command; expected one of dump, stats, top, reset, " +
            "watch, policy, demo, bench, help (see floodgate --help)\n", help.err());
        final Cli.Result worker = Cli.run("worker");
        assertEquals(2, worker.code(), worker::toString);
        assertTrue(worker.err().startsWith("floodgate worker: Missing required options"), worker::toString);
        assertTrue(!worker.err().contains("--help"), "no help to see: " + worker);
    }
}
