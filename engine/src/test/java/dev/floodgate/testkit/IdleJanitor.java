package dev.floodgate.testkit;

import dev.floodgate.ManualTicker;
import dev.floodgate.janitor.Janitor;
import dev.floodgate.store.ProcessRegistry;
import dev.floodgate.store.QuotaTable;

import java.nio.file.Path;

/**
 * A child JVM's janitor (for {@code JanitorIdleRaceTest}, which debugs it): opens the table, runs one pass at
 * {@code now} and a second a grace period later, printing what each did. Only buckets are in the table, so the
 * window policy is never asked for.
 *
 * <p>Arguments: table path, capacity, shards, now (ns), grace (ns).
 */
public final class IdleJanitor
{
    private IdleJanitor()
    {
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
