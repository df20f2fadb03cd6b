package dev.floodgate.reader;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.FloodgateFileException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** A file truncated under a reader's mapping is reported as damaged by every read (found by review). */
class TruncatedFileTest
{
    @TempDir
    Path dir;

    /**
     * NOTES ("The read-only reader"): "A file truncated under a live mapping would fault; the JDK turns that into
     * an InternalError, reported as a damaged file." Only open() and entries() translated it; policy(), counters(),
     * checks() and cluster() let the InternalError out (the CLI then printed "unexpected failure, please report it"
     * with a stack trace and exited 1 instead of 3). Fails before.
     */
    @Test
    void everyReadOfAFileTruncatedUnderTheMappingIsReportedAsADamagedFile() throws Exception
    {
        final Path file = dir.resolve("t.map");
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.AUTH, 10, 3_600_000).build()))
        {
            gate.checkLimit("10.0.0.1", Action.AUTH);
        }
        try (FloodgateReader reader = FloodgateReader.open(file))
        {
            try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE))
            {
                channel.truncate(4096); // e.g. an operator's "> t.map", or a full disk during a copy
            }
            final Map<String, Executable> reads = new LinkedHashMap<>();
            reads.put("entries", reader::entries);
            reads.put("policy", reader::policy);
            reads.put("counters", reader::counters);
            reads.put("checks", reader::checks);
            final StringBuilder wrong = new StringBuilder();
            for (final Map.Entry<String, Executable> read : reads.entrySet())
            {
                try
                {
                    read.getValue().execute();
                    wrong.append(read.getKey()).append(": returned normally; ");
                }
                catch (final FloodgateFileException expected)
                {
                    assertTrue(expected.getMessage().contains(file.toString()), expected::getMessage);
                }
                catch (final Throwable other)
                {
                    wrong.append(read.getKey()).append(": ").append(other).append("; ");
                }
            }
            if (wrong.length() > 0)
            {
                fail("not reported as a damaged file: " + wrong);
            }
        }
    }
}
