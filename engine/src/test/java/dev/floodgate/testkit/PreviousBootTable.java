package dev.floodgate.testkit;

import dev.floodgate.store.FileHeader;
import dev.floodgate.store.QuotaTable;

import java.nio.file.Path;

/** A table as a previous boot left it: the next open replaces it with a new one. */
public final class PreviousBootTable
{
    private PreviousBootTable()
    {
    }

    /**
     * Creates a table of {@code capacity} entries (two shards) at {@code file} and marks it written under another boot.
     */
    public static void create(final Path file, final long capacity)
    {
        try (QuotaTable table = QuotaTable.open(file, capacity, 2, false, 0))
        {
            table.header().buffer().putLong(FileHeader.BOOT_ID_OFFSET, 12345L); // written under another boot
        }
    }
}
