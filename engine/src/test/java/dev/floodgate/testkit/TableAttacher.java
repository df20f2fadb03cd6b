package dev.floodgate.testkit;

import dev.floodgate.store.QuotaTable;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Runs in its own JVM: opens (and so creates, or replaces a previous boot's) the table, then says which file it
 * attached to: {@code OPENED <inode> <whether that file is still at the table's path>}.
 *
 * <pre>args: file capacity</pre>
 */
public final class TableAttacher
{
    private TableAttacher()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final Path file = Path.of(args[0]);
        try (QuotaTable table = QuotaTable.open(file, Long.parseLong(args[1]), 2, false, System.nanoTime()))
        {
            System.out.println("OPENED " + Files.getAttribute(file, "unix:ino") + " " + table.atItsPath());
        }
    }
}
