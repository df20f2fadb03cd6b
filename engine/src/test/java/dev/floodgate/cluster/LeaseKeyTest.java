package dev.floodgate.cluster;

import dev.floodgate.Action;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Keys an operator can read in redis-cli, that no identifier can make collide, of a bounded length. */
class LeaseKeyTest
{
    @Test
    void aKeyNamesTheActionAndTheIdentifier()
    {
        assertEquals("floodgate:auth:10.0.0.1", LeaseKey.of(Action.AUTH, "10.0.0.1").toString());
        assertEquals("floodgate:dashboard_api:x:y", LeaseKey.of(Action.DASHBOARD_API, "x:y").toString());
        assertArrayEquals("floodgate:publish:ü".getBytes(StandardCharsets.UTF_8),
            LeaseKey.of(Action.PUBLISH, "ü").bytes());
    }

    @Test
    void noIdentifierReachesAnotherActionsKeys()
    {
        final Set<String> prefixes = new HashSet<>();
        for (final Action action : Action.values())
        {
            prefixes.add("floodgate:" + action.configPrefix() + ":");
            prefixes.add("floodgate:" + action.configPrefix() + "#");
        }
        for (final String a : prefixes)
        {
            for (final String b : prefixes)
            {
                assertFalse(!a.equals(b) && b.startsWith(a), a + " is a prefix of " + b);
            }
        }
        assertEquals("floodgate:auth:publish:x", LeaseKey.of(Action.AUTH, "publish:x").toString());
    }

    @Test
    void distinctIdentifiersNeverShareAKey()
    {
        // a lone surrogate would become '?' in plain UTF-8; here it keeps bytes of its own
        final List<String> identifiers = List.of("?", "\uD800", "\uDC00", "\uD800\uDC00", "\uDC00\uD800",
            "\uD800?", "x\n", "x", "x\r", "\u0000", "\u0000\u0000", "{a}", "a}", "x".repeat(256), "x".repeat(257),
            "x".repeat(258), "é", "e\u0301");
        final Set<LeaseKey> keys = new HashSet<>();
        for (final Action action : Action.values())
        {
            for (final String identifier : identifiers)
            {
                keys.add(LeaseKey.of(action, identifier));
            }
        }
        assertEquals(Action.values().length * identifiers.size(), keys.size());
    }

    @Test
    void aLongIdentifierIsDigestedToABoundedKey()
    {
        final LeaseKey key = LeaseKey.of(Action.AUTH, "x".repeat(1_000_000));
        assertEquals("floodgate:auth#".length() + 64, key.bytes().length);
        assertEquals(LeaseKey.of(Action.AUTH, "x".repeat(1_000_000)), key);
        assertEquals("floodgate:auth:".length() + LeaseKey.MAX_RAW_BYTES,
            LeaseKey.of(Action.AUTH, "x".repeat(LeaseKey.MAX_RAW_BYTES)).bytes().length);
    }

    @Test
    void anEmptyIdentifierIsRefused()
    {
        assertThrows(IllegalArgumentException.class, () -> LeaseKey.of(Action.AUTH, ""));
    }
}
