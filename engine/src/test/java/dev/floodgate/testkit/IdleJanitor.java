package dev.floodgate.testkit;

import dev.floodgate.ManualTicker;
import dev.floodgate.janitor.Janitor;
import dev.floodgate.store.ProcessRegistry;
import dev.floodgate.store.QuotaTable;

import java.nio.file.Path;
import java.util.List;

/**
 * A child JVM's janitor (for the tests that debug it: {@code JanitorIdleRaceTest}, {@code OrphanBlockedRaceTest},
 * {@code StoppedJanitorTakeoverTest}): opens the table, runs one pass at {@code now} and a second a grace period
 * later, printing what each did. Only buckets are in the table, so the window policy is never asked for.
 *
 * <p>Arguments: table path, capacity, shards, now (ns), grace (ns).
 */
public final class IdleJanitor
{
    /** The time of the child's first pass (ns, a made-up clock), as the tests that debug it use it. */
    public static final long NOW = 1_000_000_000_000L;
    /** The grace period the tests give it: its second pass runs this much after {@link #NOW}. */
    public static final long GRACE = 10_000_000_000L;

    private IdleJanitor()
    {
    }

    /**
     * Starts this janitor in a child JVM under the debugger, suspended until the caller has set where it stops, on
     * the table at {@code file}, its passes at {@link #NOW} and a {@link #GRACE} later.
     */
    public static DebuggedChild startDebugged(final Path file, final long capacity, final int shards) throws Exception
    {
        return DebuggedChild.start(IdleJanitor.class, List.of(file.toString(), Long.toString(capacity),
            Integer.toString(shards), Long.toString(NOW), Long.toString(GRACE)));
    }

    public static void main(final String[] args)
    {
        final Path path = Path.of(args[0]);
        final long now = Long.parseLong(args[3]);
        final long grace = Long.parseLong(args[4]);
        final ManualTicker ticker = new ManualTicker(now);
        try (QuotaTable table = QuotaTable.open(path, Long.parseLong(args[1]), Integer.parseInt(args[2]), false, now))
        {
            final ProcessRegistry registry = new ProcessRegistry(table.header(), table.locks(), grace / 2);
            final int slot = registry.register(table.owner(), now);
            final Janitor janitor = new Janitor(table, registry, ticker, grace, slot, () ->
            {
                throw new IllegalStateException("no window entries here");
            });
            System.out.println("PASS1 " + janitor.runPass());
            ticker.advanceNanos(grace);
            System.out.println("PASS2 " + janitor.runPass());
            registry.unregister(table.owner());
        }
        System.out.println("DONE");
    }
}
