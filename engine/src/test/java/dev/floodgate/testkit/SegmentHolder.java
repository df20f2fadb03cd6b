package dev.floodgate.testkit;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.store.ProcessRegistry;
import dev.floodgate.store.QuotaTable;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Runs in its own JVM: takes one segment's guard, as a broker stopped (or killed) inside a table operation would
 * hold it, says {@code HELD <pid>} (its pid as it sees it), and keeps it until its standard input closes.
 *
 * <pre>args: file segment [attached] [registered] [forever]</pre>
 * With {@code attached}, it also keeps a {@code Floodgate} open on the file, so it is in the process registry; with
 * {@code registered}, the table's own slot (the guard's owner) is in the registry, as a broker's instance is;
 * with {@code forever}, it holds until killed (for a holder whose standard input is not the test's).
 */
public final class SegmentHolder
{
    private SegmentHolder()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        final java.util.List<String> modes = java.util.Arrays.asList(args).subList(2, args.length);
        final Floodgate attached = modes.contains("attached") ? Floodgate.open(FloodgateConfig.builder()
            .file(Path.of(args[0])).capacity(1_000).build()) : null;
        try (QuotaTable table = QuotaTable.open(Path.of(args[0]), 1_000, 2, false, System.nanoTime()))
        {
            if (modes.contains("registered"))
            {
                new ProcessRegistry(table.header(), table.locks(), Long.MAX_VALUE / 4).register(table.owner(),
                    System.nanoTime());
            }
            final int segment = Integer.parseInt(args[1]);
            if (!table.guard().acquireSegment(segment, 10_000_000_000L))
            {
                throw new IllegalStateException("could not take the guard of segment " + segment);
            }
            System.out.println("HELD " + ProcessHandle.current().pid());
            System.out.flush();
            if (modes.contains("forever"))
            {
                java.util.concurrent.locks.LockSupport.parkNanos(600_000_000_000L); // the test kills us first
            }
            while (System.in.read() >= 0)
            {
                // hold until the test closes our standard input (or kills us)
            }
            table.guard().releaseSegment(segment);
        }
        if (attached != null)
        {
            attached.close();
        }
    }
}
