package dev.floodgate.tools;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.reader.FloodgateReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The read commands open the table read-only: no write access needed, nothing written, nothing published. */
class ReadOnlyReadersTest
{
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long HOUR_MS = 3_600_000L;

    @TempDir
    Path dir;

    private Path writeTable(final String name) throws Exception
    {
        final Path file = dir.resolve(name);
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.AUTH, 2, 60_000).limit(Action.PUBLISH, 5, 60_000).build()))
        {
            for (int i = 0; i < 3; i++)
            {
                gate.checkLimit("10.0.0.1", Action.AUTH);
                gate.checkLimitInCaller("alice", Action.PUBLISH);
            }
        }
        return file;
    }

    @Test
    void everyReaderRunsOnAnImmutableFileAndLeavesItByteForByteUnchanged() throws Exception
    {
        final Path file = writeTable("ro.map");
        final byte[] before = digest(file);
        final boolean immutable = ResetCommandTest.makeUnwritable(file);
        assertTrue(immutable || !"root".equals(System.getProperty("user.name")), "chattr +i failed on " + file);
        try
        {
            for (final String[] command : new String[][] {{"dump"}, {"dump", "--json"}, {"stats"}, {"stats", "--json"}, {"stats", "--prometheus"},
                {"top", "--action", "auth"}, {"watch", "--iterations", "2", "--interval", "1ms"},
                {"watch", "--json", "--iterations", "1"}, {"policy"}, {"policy", "--json"}})
            {
                final String[] line = Arrays.copyOf(command, command.length + 2);
                line[command.length] = "--file";
                line[command.length + 1] = file.toString();
                final Cli.Result result = Cli.run(line);
                assertEquals(0, result.code(), String.join(" ", command) + ": " + result);
            }
            final JsonNode stats = JSON.readTree(Cli.run("stats", "--json", "--file", file.toString()).out());
            assertEquals(1, stats.get("actions").get("auth").get("refused").asLong(), stats::toString);
        }
        finally
        {
            ResetCommandTest.makeWritable(file, immutable);
        }
        assertArrayEquals(before, digest(file), "a reader changed the file");
    }

    @Test
    void policyCommandNeverPublishesEvenWhenAskedToByTheEnvironment() throws Exception
    {
        final Path file = writeTable("policy.map");
        final long generation;
        try (FloodgateReader reader = FloodgateReader.open(file))
        {
            generation = reader.policy().generation();
        }
        System.setProperty(Floodgate.POLICY_PROPERTY, "publish"); // what FLOODGATE_POLICY=publish sets
        final Cli.Result result;
        try
        {
            result = Cli.run("policy", "--json", "--file", file.toString());
        }
        finally
        {
            System.clearProperty(Floodgate.POLICY_PROPERTY);
        }
        assertEquals(0, result.code(), result::toString);
        final JsonNode policy = JSON.readTree(result.out());
        assertEquals(generation, policy.get("generation").asLong());
        assertEquals(5, policy.get("actions").get("publish").get("limit").asLong(), "the node's quota stands");
        assertEquals("enforce", policy.get("actions").get("publish").get("mode").asText());
        try (FloodgateReader reader = FloodgateReader.open(file))
        {
            assertEquals(generation, reader.policy().generation(), "the policy was republished");
            assertEquals(5, reader.policy().rule(Action.PUBLISH).limit());
        }
    }

    @Test
    void dumpShowsTheWindowTheDoorCountsInAfterAPolicyChange() throws Exception
    {
        // The entry is created under a 1 s window of limit 10; a change to 6 per 6 h starts a regime at the
        // next 1 s boundary, numbered from one past that window: not floor(t / 6 h). The writer's clock runs
        // 2 s behind the CLI's until the change, then catches up, so the claims and the dump share one window.
        final AtomicLong clock = new AtomicLong(System.nanoTime() - 2_000_000_000L);
        final Path file = dir.resolve("regime.map");
        final FloodgateConfig config = FloodgateConfig.builder().file(file).capacity(1_000).ticker(clock::get)
            .limit(Action.PUBLISH, 10, 1_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("alice", Action.PUBLISH));
            gate.reconfigure(config.toBuilder().limit(Action.PUBLISH, 6, 6 * HOUR_MS).build());
            clock.set(System.nanoTime()); // past the new regime's epoch: at most 1.1 s after the old clock
            for (int i = 0; i < 3; i++)
            {
                assertEquals(Floodgate.ADMITTED, gate.checkLimitInCaller("alice", Action.PUBLISH));
            }
        }
        final Cli.Result text = Cli.run("dump", "--kind", "window", "--file", file.toString());
        assertTrue(text.out().contains("3/6 used"), text::toString);
        final JsonNode window = JSON.readTree(Cli.run("dump", "--json", "--kind", "window", "--file",
            file.toString()).out()).get(0);
        assertEquals(3, window.get("used").asLong(), window::toString);
        long caps = 0;
        for (final JsonNode cap : window.get("shardCap"))
        {
            caps += cap.asLong();
        }
        assertEquals(6, caps, "caps of the new regime: " + window);
    }

    @Test
    void aTruncatedOrDamagedFileIsAClearErrorNamingIt() throws Exception
    {
        final Path file = writeTable("whole.map");
        final byte[] bytes = Files.readAllBytes(file);
        final Path truncated = dir.resolve("truncated.map");
        Files.write(truncated, Arrays.copyOf(bytes, bytes.length / 2));
        final Path damaged = dir.resolve("damaged.map");
        final byte[] scrambled = bytes.clone();
        final byte[] noise = new byte[scrambled.length - 8192];
        new Random(7).nextBytes(noise);
        System.arraycopy(noise, 0, scrambled, 8192, noise.length); // keep Chronicle's header, scramble the tiers
        Files.write(damaged, scrambled);
        for (final Path bad : new Path[] {truncated, damaged})
        {
            for (final String command : new String[] {"dump", "stats", "policy"})
            {
                final Cli.Result result = Cli.run(command, "--file", bad.toString());
                assertEquals(3, result.code(), result::toString);
                assertTrue(result.err().contains(bad.toString()), "names the file: " + result);
                assertFalse(result.err().contains("\tat ") || result.err().contains("Exception"), result::toString);
            }
        }
        final Cli.Result truncatedDump = Cli.run("dump", "--file", truncated.toString());
        assertTrue(truncatedDump.err().contains("truncated"), truncatedDump::toString);
    }

    @Test
    void watchJsonIsOneParseableObjectPerRefreshWithoutEscapeCodes() throws Exception
    {
        final Path file = writeTable("watch.map");
        final Cli.Result result = Cli.run("watch", "--json", "--iterations", "2", "--interval", "1ms", "--file",
            file.toString());
        assertEquals(0, result.code(), result::toString);
        assertFalse(result.out().contains("\033"), result::toString);
        final String[] lines = result.out().strip().split("\n");
        assertEquals(2, lines.length, result::toString);
        for (final String line : lines)
        {
            final JsonNode refresh = JSON.readTree(line);
            assertEquals(3, refresh.get("actions").get("auth").get("admitted").asLong() +
                refresh.get("actions").get("auth").get("refused").asLong(), line);
            assertEquals("10.0.0.1", refresh.get("topRefused").get(0).get("identifier").asText(), line);
        }
    }

    private static byte[] digest(final Path file) throws Exception
    {
        return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(file));
    }
}
