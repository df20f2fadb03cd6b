package dev.floodgate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

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

        final Logger logger = Logger.getLogger("dev.floodgate");
        final List<String> warnings = new ArrayList<>();
        final Handler handler = new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                if (record.getLevel().intValue() >= Level.WARNING.intValue())
                {
                    synchronized (warnings)
                    {
                        warnings.add(record.getParameters() == null ? record.getMessage() :
                            MessageFormat.format(record.getMessage(), record.getParameters()));
                    }
                }
            }

            @Override
            public void flush()
            {
            }

            @Override
            public void close()
            {
            }
        };
        logger.addHandler(handler);
        boolean refused = false;
        long capacityInForce = -1;
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(50_000).build()))
        {
            capacityInForce = gate.stats().capacity();
        }
        catch (final FloodgateFileException ex)
        {
            refused = ex.getMessage().contains("capacity");
        }
        finally
        {
            logger.removeHandler(handler);
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
