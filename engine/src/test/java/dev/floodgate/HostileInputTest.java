package dev.floodgate;

import dev.floodgate.store.QuotaTable;
import dev.floodgate.store.Wtf8;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HostileInputTest
{
    @TempDir
    Path dir;

    /** 2^n strings of equal length that all share one {@link String#hashCode()}: "Aa" and "BB" collide. */
    private static List<String> collidingIdentifiers(final int n)
    {
        final List<String> out = new ArrayList<>();
        for (int bits = 0; bits < 1 << n; bits++)
        {
            final StringBuilder s = new StringBuilder();
            for (int i = 0; i < n; i++)
            {
                s.append((bits >> i & 1) == 0 ? "Aa" : "BB");
            }
            out.add(s.toString());
        }
        return out;
    }

    @Test
    void shouldSpreadIdentifiersThatCollideUnderAnUnkeyedHashEvenlyOverSegments()
    {
        final List<String> identifiers = collidingIdentifiers(12);
        assertEquals(1, identifiers.stream().mapToInt(String::hashCode).distinct().count(), "they do collide");
        final Path file = dir.resolve("spread.map");
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(20_000).build()))
        {
            for (final String identifier : identifiers)
            {
                assertEquals(Floodgate.ADMITTED, gate.checkLimit(identifier, Action.AUTH));
            }
            assertEquals(identifiers.size(), gate.stats().buckets());
        }
        try (QuotaTable table = QuotaTable.open(file, 20_000, 2, false, 0))
        {
            final long[] counts = table.scans().segmentCounts();
            final double mean = Arrays.stream(counts).sum() / (double)counts.length;
            final long max = Arrays.stream(counts).max().orElseThrow();
            final long min = Arrays.stream(counts).min().orElseThrow();
            assertTrue(counts.length >= 8, "several segments: " + counts.length);
            assertTrue(max < mean * 1.5 && min > mean * 0.5,
                "even spread over " + counts.length + " segments: " + Arrays.toString(counts));
        }
    }

    @Test
    void shouldStoreAnyIdentifierAsABoundedValidLabelWithoutCorruptingIt()
    {
        final String[] hostile = {
            "\u001b[2J\u001b[31mred\u0007",           // terminal escapes, bell
            "nul\u0000in\u0000the\u0000middle",
            "\ud83d\ude00".repeat(20),                 // 4-byte characters across the 48-byte cut
            "a\ud800b",                                // an unpaired surrogate
            "x".repeat(47) + "\u00e9",                 // a 2-byte character straddling the cut
            "line\nbreak\r\ttab",
        };
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("labels.map"))
            .capacity(1_000).build()))
        {
            for (final String identifier : hostile)
            {
                for (int i = 0; i < 11; i++)
                {
                    gate.checkLimit(identifier, Action.AUTH);
                }
            }
            final List<BlockedEntry> top = gate.topBlocked(Action.AUTH, 100);
            assertEquals(hostile.length, top.size());
            for (final BlockedEntry entry : top)
            {
                final byte[] stored = Wtf8.encode(entry.identifier()); // the label's bytes, lone surrogates kept
                assertTrue(stored.length <= 48, entry.identifier());
                assertTrue(Arrays.stream(hostile).anyMatch(h -> h.startsWith(entry.identifier())),
                    "a prefix of what was checked: " + entry.identifier());
                assertEquals(1, entry.count());
            }
        }
    }

    @Test
    void shouldCreateTheFileGroupReadableOnlyWhenConfigured() throws Exception
    {
        final Path file = dir.resolve("group.map");
        try (Floodgate ignored = Floodgate.open(FloodgateConfig.builder().file(file).capacity(100)
            .groupReadable(true).build()))
        {
            assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        }
        final Path nested = dir.resolve("fresh-dir").resolve("private.map");
        try (Floodgate ignored = Floodgate.open(FloodgateConfig.builder().file(nested).capacity(100).build()))
        {
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(nested)));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(nested.getParent())));
        }
    }

    @Test
    void shouldGiveAJvmWithoutWritePermissionAClearError() throws Exception
    {
        final Path file = dir.resolve("readonly.map");
        Floodgate.open(FloodgateConfig.builder().file(file).capacity(100).build()).close();
        final boolean root = "root".equals(System.getProperty("user.name"));
        if (root)
        {
            // root ignores permission bits; the immutable attribute binds it too
            final Process chattr = new ProcessBuilder("chattr", "+i", file.toString()).inheritIO().start();
            Assumptions.assumeTrue(chattr.waitFor(10, TimeUnit.SECONDS) && chattr.exitValue() == 0,
                "chattr +i is unavailable on this file system");
        }
        else
        {
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
        }
        try
        {
            final FloodgateFileException error = assertThrows(FloodgateFileException.class,
                () -> Floodgate.open(FloodgateConfig.builder().file(file).capacity(100).build()));
            assertTrue(error.getMessage().contains("permission denied") || error.getMessage().contains("not permitted"),
                error.getMessage());
            assertTrue(error.getMessage().startsWith(file.toString()), error.getMessage());
        }
        finally
        {
            if (root)
            {
                new ProcessBuilder("chattr", "-i", file.toString()).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * checkLimit and checkLimitInCaller promise an IllegalArgumentException for an empty identifier and a
     * NullPointerException for a null action, and quota("") does throw; but the emptiness was tested only on the
     * table's cold path, so a check of a switched-off action or of a disabled engine admitted both silently: a broker
     * tested with publish off or rate_limit_enabled=false met the exception only in production (found by review).
     */
    @Test
    void shouldRefuseAnEmptyIdentifierAndANullActionWhateverTheLimit()
    {
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("off.map")).capacity(1_000)
            .build()))
        {
            assertThrows(IllegalArgumentException.class, () -> gate.quota("", Action.PUBLISH), "the handle refuses");
            assertThrows(IllegalArgumentException.class, () -> gate.checkLimitInCaller("", Action.PUBLISH),
                "publish is off (0) by default: the by-name check must refuse as the handle does");
        }
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(dir.resolve("disabled.map"))
            .capacity(1_000).enabled(false).build()))
        {
            assertThrows(IllegalArgumentException.class, () -> gate.checkLimit("", Action.AUTH),
                "rate_limit_enabled=false");
            assertThrows(NullPointerException.class, () -> gate.checkLimit("10.0.0.1", null),
                "rate_limit_enabled=false");
        }
    }

    /**
     * Charge's Javadoc says it validates eagerly, so a bad charge fails where it is built, and its identifier is "not
     * empty"; but only null was refused there: Charge.window("", ...) was built and failed later, in charge(), far
     * from the code that made it (found by the broker trial).
     */
    @Test
    void shouldRefuseAChargeOfAnEmptyIdentifierWhereItIsBuilt()
    {
        final IllegalArgumentException window = assertThrows(IllegalArgumentException.class,
            () -> Charge.window("", Action.PUBLISH, 1));
        assertEquals("identifier is empty: expected at least one character", window.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Charge.bucket(new StringBuilder(), Action.AUTH, 1));
        assertThrows(IllegalArgumentException.class, () -> new Charge("", Action.AUTH, true, 1));
    }

    /**
     * {@code Floodgate.sessionDigest("")} returned a digest, so every request with an empty session token shared one
     * DASHBOARD_API quota (found by the broker trial). An empty token is refused as an empty identifier is; null
     * stays a NullPointerException naming it.
     */
    @Test
    void shouldRefuseAnEmptySessionTokenAsAnEmptyIdentifierIsRefused()
    {
        final IllegalArgumentException empty = assertThrows(IllegalArgumentException.class,
            () -> Floodgate.sessionDigest(""));
        assertEquals("token is empty: expected at least one character", empty.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Floodgate.sessionDigest(new StringBuilder()));
        assertEquals("token", assertThrows(NullPointerException.class, () -> Floodgate.sessionDigest(null))
            .getMessage());
        assertEquals("ungWv48Bz-pBQUDeXa4iIw", Floodgate.sessionDigest("abc"), "a token still has its digest");
    }

    /**
     * {@code checkLimit("x", null)} threw the JVM's helpful-NPE text ("Cannot invoke \"dev.floodgate.Action
     * .ordinal()\" ..."), where the other arguments are named in the engine's words (found by the broker trial).
     * Every public method or constructor of the API taking an action, found by reflection so that one added later is
     * held to it too, names {@code action}; switched off as on.
     */
    @Test
    void shouldNameTheActionWhenEveryPublicEntryTakingOneIsGivenNull()
    {
        final FloodgateConfig config = FloodgateConfig.builder().file(dir.resolve("null.map")).capacity(1_000)
            .limit(Action.PUBLISH, 10, 1_000).build();
        final List<String> called = new ArrayList<>();
        for (final boolean enabled : new boolean[] {true, false})
        {
            try (Floodgate gate = Floodgate.open(config.toBuilder().enabled(enabled).build()))
            {
                final Map<Class<?>, Object> receivers = Map.of(Floodgate.class, gate, FloodgateConfig.class, config,
                    FloodgateConfig.Builder.class, config.toBuilder(), FloodgatePolicy.class, gate.policy(),
                    FloodgateKeys.class, Floodgate.class, Charge.class, Charge.class);
                for (final Map.Entry<Class<?>, Object> receiver : receivers.entrySet())
                {
                    final List<Executable> entries = new ArrayList<>(List.of(receiver.getKey().getConstructors()));
                    entries.addAll(List.of(receiver.getKey().getMethods()));
                    for (final Executable entry : entries)
                    {
                        if (List.of(entry.getParameterTypes()).contains(Action.class))
                        {
                            called.add(entry.toString());
                            final NullPointerException error = assertThrows(NullPointerException.class,
                                () -> call(entry, receiver.getValue()), entry::toString);
                            assertEquals("action", error.getMessage(), entry::toString);
                        }
                    }
                }
            }
        }
        for (final String method : new String[] {"checkLimit(java.lang.CharSequence,dev.floodgate.Action)",
            "checkLimit(java.lang.CharSequence,dev.floodgate.Action,long)", "checkLimitInCaller(java.lang.CharSequence," +
            "dev.floodgate.Action,long)", "quota(", "probe(", "probeInCaller(", "resetEntries(", "blockedCount(",
            "topBlocked(", "Charge.bucket(", "Charge.window(", "Charge(java.lang.CharSequence", "FloodgatePolicy.rule(",
            "FloodgateConfig.limit(", "FloodgateKeys.limitKey("})
        {
            assertTrue(called.stream().anyMatch(entry -> entry.contains(method)), method + " not among " + called);
        }
    }

    /** Calls {@code entry} with null for its action and a valid value for every other parameter. */
    private static void call(final Executable entry, final Object receiver) throws Throwable
    {
        final Class<?>[] types = entry.getParameterTypes();
        final Object[] args = new Object[types.length];
        for (int i = 0; i < types.length; i++)
        {
            args[i] = types[i] == Action.class ? null : types[i] == long.class ? 1L : types[i] == int.class ? 1 :
                types[i] == boolean.class ? false : "10.0.0.1"; // CharSequence, String
        }
        try
        {
            if (entry instanceof Constructor<?> constructor)
            {
                constructor.newInstance(args);
            }
            else
            {
                ((Method)entry).invoke(Modifier.isStatic(entry.getModifiers()) ? null : receiver, args);
            }
        }
        catch (final InvocationTargetException ex)
        {
            throw ex.getCause();
        }
    }
}
