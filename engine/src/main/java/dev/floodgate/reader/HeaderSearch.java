package dev.floodgate.reader;

import dev.floodgate.FloodgateFileException;
import dev.floodgate.store.FileHeader;
import dev.floodgate.store.KeyHasher;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Finds a table's Floodgate header (the entry under the all-zero key) without Chronicle Map, and refuses a file
 * whose header this reader cannot read: a foreign table, another format version, damaged numbers. Stateless.
 */
final class HeaderSearch
{
    private HeaderSearch()
    {
    }

    /**
     * @param mapping the table, mapped read-only.
     * @param layout  its Chronicle layout.
     * @return the header, checked.
     * @throws FloodgateFileException naming the file when the header is missing, of another version or damaged.
     */
    static FileHeader find(final ReadOnlyMapping mapping, final ChronicleLayout layout)
    {
        final FileHeader header = new FileHeader(findRecord(mapping, layout));
        if (header.magic() != FileHeader.MAGIC)
        {
            throw damaged(mapping, "bad magic number 0x" + Long.toHexString(header.magic()) +
                ": not a Floodgate table");
        }
        if (header.version() != FileHeader.FORMAT_VERSION)
        {
            throw damaged(mapping, "format version " + header.version() + (header.version() > FileHeader.FORMAT_VERSION ?
                " is newer than" : " is not") + " this reader's version " + FileHeader.FORMAT_VERSION);
        }
        if (header.shards() < 1 || header.shards() > 4096 || header.capacity() < 1)
        {
            throw damaged(mapping, "damaged header: shards " + header.shards() + ", capacity " + header.capacity());
        }
        return header;
    }

    private static UnsafeBuffer findRecord(final ReadOnlyMapping mapping, final ChronicleLayout layout)
    {
        final UnsafeBuffer[] found = new UnsafeBuffer[1];
        final TableScan scan = new TableScan(mapping, layout);
        final TableScan.Decoder<UnsafeBuffer> decoder = (key, value) ->
        {
            for (final byte b : key)
            {
                if (b != 0)
                {
                    return null;
                }
            }
            return value.capacity() >= FileHeader.LENGTH ? new UnsafeBuffer(value, 0, FileHeader.LENGTH) : null;
        };
        final TableScan.Sink<UnsafeBuffer> sink = buffer ->
        {
            found[0] = buffer;
            return false;
        };
        // Chronicle Map puts a key in segment (xxHash64 r39 of its bytes) mod segments: look there first, and
        // walk every segment only if the file disagrees.
        final int home = layout.homeSegment(new byte[KeyHasher.KEY_LENGTH]);
        if (home < 0 || scan.forEach(home, home + 1, decoder, sink))
        {
            scan.forEach(0, layout.segments, decoder, sink);
        }
        if (found[0] == null)
        {
            throw damaged(mapping, "has no Floodgate header: a table of another format");
        }
        return found[0];
    }

    private static FloodgateFileException damaged(final ReadOnlyMapping mapping, final String what)
    {
        return new FloodgateFileException(mapping.file(), what, null);
    }
}
