package dev.floodgate.tools;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A broker JVM with cluster quotas, for the CLI's tests: PUBLISH (fallback local) and AUTH (fallback refuse)
 * leased 10 at a time from cluster quotas of 100 a minute, AUTH's node quota 1 a minute; DASHBOARD_API leased 2 of a
 * cluster quota of 2 a minute. Phase 1: PUBLISH spends 3, 2 and 1 tokens of three identifiers, AUTH is refused by
 * the node on carol's second check, DASHBOARD_API is refused by the cluster on dan's third and fourth; prints
 * {@code PHASE1 roundTrips=N} (its client's count, its figures flushed to the file). Phase 2, once the go file
 * exists (the test has killed Redis meanwhile): one AUTH check of erin (refused by the fallback) and one PUBLISH
 * check of frank (admitted locally); closes, and prints {@code DONE roundTrips=N unavailable=U}.
 *
 * <p>Arguments: file, Redis URI, go file.
 */
public final class ClusterWriter
{
    private ClusterWriter()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final FloodgateConfig config = FloodgateConfig.builder().file(Path.of(args[0])).capacity(1_000)
            .limit(Action.PUBLISH, 1_000, 60_000).limit(Action.AUTH, 1, 60_000)
            .limit(Action.DASHBOARD_API, 1_000, 60_000).clusterRedisUri(args[1])
            .clusterLimit(Action.PUBLISH, 100, 60_000).clusterLease(Action.PUBLISH, 10)
            .clusterFallbackLocal(Action.PUBLISH, true)
            .clusterLimit(Action.AUTH, 100, 60_000).clusterLease(Action.AUTH, 10)
            .clusterFallbackLocal(Action.AUTH, false)
            .clusterLimit(Action.DASHBOARD_API, 2, 60_000).clusterLease(Action.DASHBOARD_API, 2)
            .clusterFallbackLocal(Action.DASHBOARD_API, false).build();
        final Path go = Path.of(args[2]);
        ClusterStats.Process figures;
        try (Floodgate gate = Floodgate.open(config))
        {
            final long[] spent = {3, 2, 1};
            for (int i = 0; i < spent.length; i++)
            {
                for (int k = 0; k < spent[i]; k++)
                {
                    expect(gate.checkLimit("user-" + i, Action.PUBLISH) == Floodgate.ADMITTED, "user-" + i);
                }
            }
            expect(gate.checkLimit("carol", Action.AUTH) == Floodgate.ADMITTED, "carol's first");
            expect(gate.checkLimit("carol", Action.AUTH) > 0, "carol's second, refused by the node");
            expect(gate.checkLimit("dan", Action.DASHBOARD_API) == Floodgate.ADMITTED, "dan's first");
            expect(gate.checkLimit("dan", Action.DASHBOARD_API) == Floodgate.ADMITTED, "dan's second");
            expect(gate.checkLimit("dan", Action.DASHBOARD_API) > 0, "dan's third, refused by the cluster");
            expect(gate.checkLimit("dan", Action.DASHBOARD_API) > 0, "dan's fourth, refused by the cluster");
            gate.stats(); // flushes this process's figures into the file
            figures = gate.processCluster();
            System.out.println("PHASE1 roundTrips=" + figures.roundTrips());
            System.out.flush();
            while (!Files.exists(go))
            {
                Thread.sleep(1);
            }
            expect(gate.checkLimit("erin", Action.AUTH) == config.clusterRetryAfterMs(),
                "erin, the fallback's refusal");
            expect(gate.checkLimit("frank", Action.PUBLISH) == Floodgate.ADMITTED, "frank, admitted locally");
            figures = gate.processCluster();
        }
        System.out.println("DONE roundTrips=" + figures.roundTrips() + " unavailable=" + figures.unavailable());
        System.out.flush();
    }

    private static void expect(final boolean premise, final String what)
    {
        if (!premise)
        {
            System.out.println("FAILED " + what);
            System.exit(1);
        }
    }
}
