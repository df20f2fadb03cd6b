package dev.floodgate.tools;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.testkit.ChildJvm;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** policy and policy set against a table a separate JVM wrote, seen by a JVM that maps it. */
@Timeout(120)
class PolicyCommandTest
{
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
    void policyShowsAndSetChangesWhatEveryJvmEnforces()
    {
        final Cli.Result shown = Cli.run("policy", "--file", table.toString());
        assertEquals(0, shown.code(), shown::toString);
        assertTrue(shown.out().contains("publish limit=100 window_ms=3600000 mode=enforce\n"), shown::toString);
        assertTrue(shown.out().contains("auth limit=10 window_ms=3600000 mode=enforce\n"), shown::toString);

        try (Floodgate broker = Floodgate.open(FloodgateConfig.builder().file(table).capacity(1_000).build()))
        {
            assertEquals(100, broker.policy().rule(Action.PUBLISH).limit(), "a broker adopts the file's policy");
            final Cli.Result set = Cli.run("policy", "set", "publish.limit=1000", "publish.window_ms=1000",
                "--file", table.toString());
            assertEquals(0, set.code(), set::toString);
            assertTrue(set.out().startsWith("published generation 2: publish_rate_limit: 100 -> 1000, " +
                "publish_rate_window_ms: 3600000 -> 1000\n"), set::toString);
            assertEquals(1_000, broker.policy().rule(Action.PUBLISH).limit(), "on its next check");
            assertEquals(1_000, broker.policy().rule(Action.PUBLISH).windowMs());
        }
        assertTrue(Cli.run("policy", "--file", table.toString()).out()
            .contains("publish limit=1000 window_ms=1000 mode=enforce\n"));
    }

    @Test
    void policySetRefusesWhatTheConfigurationRefusesWithItsMessage()
    {
        final Cli.Result zero = Cli.run("policy", "set", "auth.limit=0", "--file", table.toString());
        assertEquals(2, zero.code(), zero::toString);
        assertTrue(zero.err().contains("auth.limit=0: expected a whole number from 1"), zero::toString);
        final Cli.Result malformed = Cli.run("policy", "set", "publish", "--file", table.toString());
        assertEquals(2, malformed.code(), malformed::toString);
        assertTrue(malformed.err().contains("expected action.key=value"), malformed::toString);
        assertTrue(Cli.run("policy", "--file", table.toString()).out().startsWith("generation 1\n"),
            "nothing was published");
    }
}
