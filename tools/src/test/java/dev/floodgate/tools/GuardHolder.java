package dev.floodgate.tools;

import dev.floodgate.store.QuotaTable;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Runs in its own JVM: takes the table guard, as a broker stopped inside a table operation would hold it,
 * says {@code HELD}, and keeps it until its standard input closes.
 */
public final class GuardHolder
{
    private GuardHolder()
    {
    }

    /** @param args the table file. */
    public static void main(final String[] args) throws IOException
    {
        try (QuotaTable table = QuotaTable.open(Path.of(args[0]), 1, 1, false, System.nanoTime()))
        {
            if (!table.guard().acquire(10_000_000_000L))
            {
                throw new IllegalStateException("could not take the guard");
            }
            System.out.println("HELD");
            System.out.flush();
            while (System.in.read() >= 0)
            {
                // hold until the test closes our standard input
            }
            table.guard().release();
        }
    }
}
