package dev.floodgate.tools.cluster;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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
    void startsAnswersCountsScriptCallsAndStops() throws Exception
    {
        final RedisWire wire;
        try (LocalRedisServer server = LocalRedisServer.start())
        {
            wire = server.wire();
            assertTrue(wire.answers());
            assertEquals(wire, RedisWire.of(server.uri()));
            final long before = wire.scriptCalls();
            wire.call("EVAL", "return 1", "0");
            assertEquals(before + 1, wire.scriptCalls());
            assertTrue(wire.timeMs() > 0);
        }
        assertFalse(wire.answers(), "stopped on close");
    }

    @Test
    void parsesOnlyPlainRedisUris()
    {
        assertEquals(new RedisWire("10.0.0.5", 6380, "secret"), RedisWire.of("redis://:secret@10.0.0.5:6380/2"));
        assertEquals(new RedisWire("localhost", 6379, null), RedisWire.of("redis://localhost"));
        assertNull(RedisWire.of("rediss://localhost:6379"));
    }
}
