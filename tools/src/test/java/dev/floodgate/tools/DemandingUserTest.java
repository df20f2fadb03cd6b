package dev.floodgate.tools;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Wrong input as a new operator types it (found by a review of every command's input; each failed before): each
 * test states what the operator met.
 */
@Timeout(120)
class DemandingUserTest
{
    @TempDir
    Path dir;

    /**
     * {@code watch --iterations 0} (a script's {@code --iterations "$N"} with N=0) refreshed forever: 0 was the
     * "never stop" default, so the value typed was silently read as "no limit"; and {@code --iterations -1} was
     * refused as "-n and --iterations: expected 0 or more", naming neither the value nor the option alone.
     */
    @Test
    void watchRefusesAnIterationCountBelowOneNamingIt()
    {
        final String table = dir.resolve("absent.map").toString();
        for (final String count : new String[] {"0", "-1"})
        {
            final Cli.Result watch = assertTimeoutPreemptively(Duration.ofSeconds(30),
                () -> Cli.run("watch", "--iterations", count, "--interval", "100ms", "--file", table));
            assertEquals(2, watch.code(), watch::toString);
            assertTrue(watch.err().startsWith("floodgate watch: --iterations " + count + ": expected 1 or more"),
                watch::toString);
            assertEquals("", watch.out(), watch::toString);
        }
    }
}
