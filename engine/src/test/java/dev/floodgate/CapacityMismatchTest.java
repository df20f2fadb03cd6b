package dev.floodgate;

import dev.floodgate.testkit.LoggedWarnings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The table lives on in {@code /dev/shm} across broker restarts, and its capacity is fixed when it is created. A JVM
 * whose configured {@code capacity} differs from the file's (an operator raising it after table-full events, then
 * restarting) opens the old table without a word: the new capacity is ignored, the node keeps refusing new keys at
 * the old one, and nothing says why. The policy keys get a warning for each difference; the capacity gets none (and
 * no error either).
 */
@Timeout(60)
class CapacityMismatchTest
{
    @TempDir
    Path dir;

    @Test
    void shouldSayWhenTheConfiguredCapacityDiffersFromTheFiles()
    {
        final Path file = dir.resolve("t.map");
        Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000).build()).close();

        boolean refused = false;
        long capacityInForce = -1;
        List<String> warnings = List.of();
        try (LoggedWarnings log = LoggedWarnings.record())
        {
            try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(50_000).build()))
            {
                capacityInForce = gate.stats().capacity();
            }
            catch (final FloodgateFileException ex)
            {
                refused = ex.getMessage().contains("capacity");
            }
            warnings = log.warnings();
        }
        if (!refused)
        {
            assertEquals(1_000, capacityInForce, "the file's capacity is the one enforced");
            assertTrue(warnings.stream().anyMatch(w -> w.contains("capacity") && w.contains("1000") &&
                w.contains("50000")), "capacity 50000 configured, the file's is 1000: no error and no warning " +
                "says the configured capacity is ignored; warnings: " + warnings);
        }
    }
}
