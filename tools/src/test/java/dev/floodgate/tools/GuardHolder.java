package dev.floodgate.tools;

import dev.floodgate.store.QuotaTable;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Runs in its own JVM: takes every segment's guard, as a broker stopped inside a table operation would hold it,
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
            for (int segment = 0; segment < table.guard().segments(); segment++)
            {
                if (!table.guard().acquireSegment(segment, 10_000_000_000L))
                {
                    throw new IllegalStateException("could not take the guard of segment " + segment);
                }
            }
            System.out.println("HELD");
            System.out.flush();
            while (System.in.read() >= 0)
            {
                // hold until the test closes our standard input
            }
            for (int segment = 0; segment < table.guard().segments(); segment++)
            {
                table.guard().releaseSegment(segment);
            }
        }
    }
}
