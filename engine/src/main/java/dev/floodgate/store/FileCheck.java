package dev.floodgate.store;

import dev.floodgate.FloodgateFileException;
import net.openhft.chronicle.algo.hashing.LongHashFunction;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks an existing file before Chronicle Map maps it, so that a foreign, truncated or damaged file is
 * refused with a message instead of an obscure exception or a SIGBUS.
 *
 * <p>Chronicle Map's file starts with a self-bootstrapping header: an 8-byte checksum, a 4-byte size word
 * (readiness bit and length), then the map's configuration as text.
 */
final class FileCheck
{
    private static final int CHECKSUM_OFFSET = 0;
    private static final int SIZE_WORD_OFFSET = 8;
    private static final int TEXT_OFFSET = 12;
    private static final int MAX_HEADER = 16 * 1024;

    private FileCheck()
    {
    }

    /**
     * Chronicle Map 2026.1's layout: the header, its global state padded to a page boundary, then one header
     * and one tier per segment ({@code VanillaChronicleHash.computeSizeInBytesWithoutTiers}).
     */
    private static long expectedMinimumSize(final Path file, final int textLength, final String text)
    {
        final long headerSize = (TEXT_OFFSET + textLength + 63) & ~63L;
        final long segmentHeadersOffset = (headerSize + 1024 + 4095) & ~4095L;
        final long segments = field(file, text, "actualSegments");
        final long segmentHeaderSize = field(file, text, "segmentHeaderSize");
        final long tierSize = field(file, text, "tierSize");
        return segmentHeadersOffset + segments * (segmentHeaderSize + tierSize);
    }

    private static long field(final Path file, final String text, final String name)
    {
        final Matcher matcher = Pattern.compile("\\b" + name + ": (\\d+)").matcher(text);
        if (!matcher.find())
        {
            throw new FloodgateFileException(file, "header lacks " + name + ": damaged or another format", null);
        }
        return Long.parseLong(matcher.group(1));
    }

    /**
     * @param file   an existing path.
     * @param write  true when the caller needs to write.
     * @throws FloodgateFileException naming the problem.
     */
    static void check(final Path file, final boolean write)
    {
        if (Files.isDirectory(file) || !Files.isRegularFile(file))
        {
            throw new FloodgateFileException(file, "not a regular file", null);
        }
        try (FileChannel channel = write ?
            FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE) :
            FileChannel.open(file, StandardOpenOption.READ))
        {
            final long size = channel.size();
            if (size == 0)
            {
                throw new FloodgateFileException(file, "empty (zero length): not a Floodgate table", null);
            }
            if (size < TEXT_OFFSET)
            {
                throw new FloodgateFileException(file, "only " + size + " bytes: truncated or not a Floodgate table",
                    null);
            }
            final ByteBuffer prefix = ByteBuffer.allocate(TEXT_OFFSET).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(prefix, 0);
            final int sizeWord = prefix.getInt(SIZE_WORD_OFFSET);
            final int textLength = sizeWord & ((1 << 30) - 1);
            if (sizeWord <= 0 || textLength > MAX_HEADER)
            {
                throw new FloodgateFileException(file, "no valid table header (size word 0x" +
                    Integer.toHexString(sizeWord) + "): not a Floodgate table, or its creator died", null);
            }
            if (size < TEXT_OFFSET + textLength)
            {
                throw new FloodgateFileException(file, "truncated: " + size + " bytes, shorter than its own header",
                    null);
            }
            final ByteBuffer header = ByteBuffer.allocate(TEXT_OFFSET + textLength).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(header, 0);
            final long checksum = LongHashFunction.xx_r39().hashBytes(header, SIZE_WORD_OFFSET, textLength + 4);
            if (checksum != header.getLong(CHECKSUM_OFFSET))
            {
                throw new FloodgateFileException(file, "header checksum mismatch: not a Floodgate table, or damaged",
                    null);
            }
            final String text = new String(header.array(), TEXT_OFFSET, textLength, StandardCharsets.UTF_8);
            if (!text.contains("VanillaChronicleMap") || !text.contains("keyClass: !type byte[]") ||
                !text.contains("constantSize: " + KeyHasher.KEY_LENGTH) || !text.contains("checksumEntries: false"))
            {
                throw new FloodgateFileException(file, "a table of another format, not a Floodgate table", null);
            }
            // A mapped page past the end of the file raises SIGBUS on first touch: refuse a short file first.
            final long expected = expectedMinimumSize(file, textLength, text);
            if (size < expected)
            {
                throw new FloodgateFileException(file, "truncated: " + size + " bytes, its header describes at least " +
                    expected, null);
            }
        }
        catch (final java.nio.file.FileSystemException ex)
        {
            if (!(ex instanceof AccessDeniedException) && !String.valueOf(ex.getReason()).contains("not permitted"))
            {
                throw new FloodgateFileException(file, "cannot be read: " + ex, ex);
            }
            throw new FloodgateFileException(file, "permission denied" + (write ? " (write access is needed)" : ""),
                ex);
        }
        catch (final IOException ex)
        {
            throw new FloodgateFileException(file, "cannot be read: " + ex, ex);
        }
    }
}
