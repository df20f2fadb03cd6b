package dev.floodgate.tools.cluster;

import io.lettuce.core.ScriptOutputType;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The demo's own Redis: found installer, started, counted, stopped. */
class LocalRedisServerTest
{
    @Test
    void findsTheInstallerBesideTheRunningCode()
    {
        // tools/target/classes here, tools/target/floodgate-tools.jar from the launcher: both two levels under tools/
        assertEquals(Path.of("redis-server-ensure").toAbsolutePath(), LocalRedisServer.ensureScript());
    }

    @Test
    void startsAnswersCountsScriptCallsAndStops()
    {
        final String uri;
        try (LocalRedisServer server = LocalRedisServer.start())
        {
            uri = server.uri();
            assertTrue(ServerConnection.answers(uri));
            try (ServerConnection connection = ServerConnection.open(uri))
            {
                final long before = connection.scriptCalls();
                connection.commands().eval("return 1", ScriptOutputType.INTEGER);
                assertEquals(before + 1, connection.scriptCalls());
                assertTrue(connection.timeMs() > 0);
            }
        }
        assertFalse(ServerConnection.answers(uri), "stopped on close");
    }
}
