package dev.floodgate.tools.command;

import dev.floodgate.ClusterStats;
import dev.floodgate.tools.format.Json;

import java.io.PrintWriter;

/**
 * The cluster quota's part of {@code floodgate stats} (issue 12): what the file knows of the node's leases and
 * calls to Redis. The connection is each broker JVM's own, not the file's: a reader never connects to Redis, so
 * it points to the meter {@code floodgate.cluster.connected} and {@code Floodgate.stats()}.
 */
final class ClusterLines
{
    static final String CONNECTION = "per broker JVM: meter floodgate.cluster.connected, Floodgate.stats()";

    private ClusterLines()
    {
    }

    /** Prints the cluster lines, or one line saying the node never leased. */
    static void print(final PrintWriter out, final ClusterStats.Node c)
    {
        if (c.equals(ClusterStats.Node.NONE))
        {
            out.printf("cluster      no leases (no cluster quota, or none used yet)%n");
            return;
        }
        out.printf("cluster      %,d leases held, %,d tokens leased and unused%n", c.leasesHeld(), c.tokensUnused());
        out.printf("  redis      %,d round trips, %,d tokens leased, %,d refunded, %,d calls unavailable%n",
            c.roundTrips(), c.tokensLeased(), c.tokensRefunded(), c.unavailable());
        out.printf("  checks     %,d refused by the cluster; fallbacks: %,d refused, %,d admitted locally " +
            "(all counted in the actions' figures above too)%n", c.refused(), c.fallbacksRefused(),
            c.fallbacksLocal());
        out.printf("  connection %s%n", CONNECTION);
    }

    /** Writes the {@code cluster} object into an open JSON object. */
    static void write(final Json json, final ClusterStats.Node c)
    {
        json.name("cluster").beginObject()
            .field("leasesHeld", c.leasesHeld())
            .field("tokensUnused", c.tokensUnused())
            .field("roundTrips", c.roundTrips())
            .field("tokensLeased", c.tokensLeased())
            .field("tokensRefunded", c.tokensRefunded())
            .field("unavailable", c.unavailable())
            .field("refused", c.refused())
            .field("fallbacksRefused", c.fallbacksRefused())
            .field("fallbacksLocal", c.fallbacksLocal())
            .field("connection", CONNECTION)
            .endObject();
    }
}
