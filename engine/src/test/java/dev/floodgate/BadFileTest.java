package dev.floodgate;

import dev.floodgate.store.FileHeader;
import dev.floodgate.store.QuotaTable;
import net.openhft.chronicle.map.ChronicleMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A bad file fails {@code open} with a message naming the file and the problem, never a JVM crash. */
class BadFileTest
{
    @TempDir
    Path dir;

    private FloodgateConfig config(final Path file)
    {
        return FloodgateConfig.builder().file(file).capacity(1_000).build();
    }

    private String refusal(final Path file)
    {
        final FloodgateFileException error = assertThrows(FloodgateFileException.class,
            () -> Floodgate.open(config(file)).close());
        assertTrue(error.getMessage().startsWith(file.toString()), error.getMessage());
        assertEquals(file, error.file());
        return error.getMessage();
    }

    private Path goodFile() throws Exception
    {
        final Path file = dir.resolve("good.map");
        try (Floodgate gate = Floodgate.open(config(file)))
        {
            gate.checkLimit("10.0.0.1", Action.AUTH);
        }
        return file;
    }

    @ParameterizedTest(name = "cut to {0} of its length")
    @ValueSource(doubles = {0.9, 0.5, 0.05, 0.0005})
    void shouldRefuseATruncatedFileBeforeMappingIt(final double fraction) throws Exception
    {
        final Path file = goodFile();
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw"))
        {
            raf.setLength((long)(raf.length() * fraction));
        }
        final String message = refusal(file);
        assertTrue(message.contains("truncated") || message.contains("not a Floodgate table"), message);
    }

    @Test
    void shouldRefuseEmptyRandomAndTinyFiles() throws Exception
    {
        assertTrue(refusal(Files.createFile(dir.resolve("empty"))).contains("empty"));
        final byte[] noise = new byte[1 << 20];
        new java.util.Random(11).nextBytes(noise);
        assertTrue(refusal(Files.write(dir.resolve("noise"), noise)).contains("not a Floodgate table"));
        assertTrue(refusal(Files.write(dir.resolve("tiny"), new byte[] {1, 2, 3})).contains("3 bytes"));
        assertTrue(refusal(Files.writeString(dir.resolve("text"), "hello, this is not a table\n".repeat(100)))
            .contains("not a Floodgate table"));
    }

    @Test
    void shouldRefuseAnotherChronicleMap() throws Exception
    {
        final Path longs = dir.resolve("longs.map");
        try (ChronicleMap<Long, Long> other = ChronicleMap.of(Long.class, Long.class).entries(100)
            .createPersistedTo(longs.toFile()))
        {
            other.put(1L, 2L);
        }
        assertTrue(refusal(longs).contains("another format"));
        final Path bytes = dir.resolve("bytes.map");
        try (ChronicleMap<byte[], byte[]> other = ChronicleMap.of(byte[].class, byte[].class)
            .constantKeySizeBySample(new byte[16]).averageValueSize(128).entries(100).checksumEntries(false)
            .createPersistedTo(bytes.toFile()))
        {
            other.put(new byte[16], new byte[8]);
        }
        assertTrue(refusal(bytes).contains("no Floodgate header"), refusal(bytes));
    }

    @ParameterizedTest(name = "format version {0}")
    @ValueSource(ints = {1, 2, 3, 4, 6, 0, 99})
    void shouldRefuseAnotherFormatVersionSayingWhichIsNewer(final int version) throws Exception
    {
        final Path file = goodFile();
        try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, 0))
        {
            table.header().buffer().putInt(FileHeader.VERSION_OFFSET, version);
        }
        final String message = refusal(file);
        assertTrue(message.contains("format version " + version), message);
        assertTrue(message.contains(version > FileHeader.FORMAT_VERSION ? "newer" : "is not"), message);
    }

    /**
     * A broker's open refused for the table's format version left {@code good.map.lock} beside a table that had none
     * (its own brokers gone): the lock file is made before the header can be read. {@code reset} and {@code policy
     * set} were fixed for this ({@code openAdopting}); {@code Floodgate.open} is the same mapping. A refused open
     * leaves the directory as it found it, as for a bad path (FileCheck).
     */
    @Test
    void shouldLeaveNoLockFileBesideATableOfAnotherFormatVersion() throws Exception
    {
        final Path file = goodFile();
        try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, 0))
        {
            table.header().buffer().putInt(FileHeader.VERSION_OFFSET, FileHeader.FORMAT_VERSION - 1);
        }
        final Path lock = dir.resolve("good.map.lock");
        Files.delete(lock); // as found: the other version's brokers are gone
        assertTrue(refusal(file).contains("format version " + (FileHeader.FORMAT_VERSION - 1)));
        assertTrue(Files.notExists(lock), "a refused open left a lock file beside the table");
        assertTrue(assertThrows(FloodgateFileException.class, () -> Floodgate.createFile(config(file))).getMessage()
            .contains("format version"));
        assertTrue(Files.notExists(lock), "a refused createFile left a lock file beside the table");
    }

    @Test
    void shouldRefuseABadMagicNumber() throws Exception
    {
        final Path file = goodFile();
        try (QuotaTable table = QuotaTable.open(file, 1_000, 2, false, 0))
        {
            table.header().buffer().putLong(FileHeader.MAGIC_OFFSET, 0x1234);
        }
        assertTrue(refusal(file).contains("magic"));
    }

    @Test
    void shouldRefuseThingsThatAreNotRegularFiles() throws Exception
    {
        assertTrue(refusal(dir).contains("not a regular file"));
        final Path fifo = dir.resolve("fifo");
        final Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertTrue(mkfifo.waitFor(10, TimeUnit.SECONDS) && mkfifo.exitValue() == 0);
        assertTrue(refusal(fifo).contains("not a regular file"));
    }

    @Test
    void shouldSayWhenTheDirectoryCannotBeCreatedIn() throws Exception
    {
        final Path parentIsAFile = Files.createFile(dir.resolve("plain"));
        final String message = refusal(parentIsAFile.resolve("table.map"));
        assertTrue(message.contains("cannot be created"), message);
    }
}
