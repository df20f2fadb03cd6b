package dev.floodgate.tools;

import dev.floodgate.Action;
import dev.floodgate.ClusterStats;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.testkit.ClusterKit;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A broker JVM with cluster quotas, for the CLI's tests: the engine's stats tests' node ({@link ClusterKit#statsNode}:
 * PUBLISH falls back local, AUTH and DASHBOARD_API refuse). Phase 1: PUBLISH spends 3, 2 and 1 tokens of three identifiers, AUTH is refused by
 * the node on carol's second check, DASHBOARD_API is refused by the cluster on dan's third and fourth; prints
 * {@code PHASE1 roundTrips=N localFallbacks=K authFallbacks=A dashboardFallbacks=D} (its client's count, its
 * figures flushed to the file, and the fallbacks it met). Phase 2, once the go file
 * exists (the test has killed Redis meanwhile): one AUTH check of erin (refused by the fallback) and one PUBLISH
 * check of frank (admitted locally); closes, and prints {@code DONE roundTrips=N unavailable=U}.
 *
 * <p>A check waits for a lease at most 50 ms, and on a loaded host a cold JVM's first leases take longer: such a
 * check is answered by the fallback, and its lease lands later. So phase 1 does not assume the leases come in time,
 * it counts the fallbacks: a PUBLISH admitted locally spent no leased token (one more unused), and an AUTH or
 * DASHBOARD_API check the fallback refused is checked again until its lease has landed (one more refusal), and so
 * are dan's third and fourth until the cluster refuses them: the third's lease brings the drained mark, and one
 * slower than the check's wait made it the fallback's refusal (the test then counted one cluster refusal of 2).
 * Before it prints, it waits until the 42 tokens its scenario leases have all landed.
 *
 * <p>Arguments: file, Redis URI, go file.
 */
public final class ClusterWriter
{
    private static final long WAIT_NANOS = 60_000_000_000L;

    private ClusterWriter()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final FloodgateConfig config = ClusterKit.statsNode(Path.of(args[0]), args[1]);
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
            admitByLease(gate, "carol", Action.AUTH);
            expect(gate.checkLimit("carol", Action.AUTH) > 0, "carol's second, refused by the node");
            admitByLease(gate, "dan", Action.DASHBOARD_API);
            admitByLease(gate, "dan", Action.DASHBOARD_API);
            refuseByCluster(gate, "dan", Action.DASHBOARD_API); // dan's third
            refuseByCluster(gate, "dan", Action.DASHBOARD_API); // and fourth
            final long deadline = System.nanoTime() + WAIT_NANOS;
            while (gate.processCluster().tokensLeased() < 42)
            {
                expect(System.nanoTime() - deadline < 0, "the leases landed within 60 s");
                Thread.sleep(1); // a lease a fallback answered for lands within its 1 s bound
            }
            gate.stats(); // flushes this process's figures into the file
            figures = gate.processCluster();
            System.out.println("PHASE1 roundTrips=" + figures.roundTrips() +
                " localFallbacks=" + figures.checks().get(Action.PUBLISH).fallbacksLocal() +
                " authFallbacks=" + figures.checks().get(Action.AUTH).fallbacksRefused() +
                " dashboardFallbacks=" + figures.checks().get(Action.DASHBOARD_API).fallbacksRefused());
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

    /** Checks until the check is admitted, each refusal being the fallback's (the lease not there yet). */
    private static void admitByLease(final Floodgate gate, final String identifier, final Action action)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT_NANOS;
        while (true)
        {
            final long before = gate.processCluster().checks().get(action).fallbacksRefused();
            if (gate.checkLimit(identifier, action) == Floodgate.ADMITTED)
            {
                return;
            }
            expect(gate.processCluster().checks().get(action).fallbacksRefused() == before + 1,
                identifier + "'s " + action + " check was refused, and not for want of a lease");
            expect(System.nanoTime() - deadline < 0, identifier + "'s lease landed within 60 s");
            Thread.sleep(1);
        }
    }

    /** Checks until the cluster refuses the check, each other refusal being the fallback's (the lease not there). */
    private static void refuseByCluster(final Floodgate gate, final String identifier, final Action action)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + WAIT_NANOS;
        while (true)
        {
            final long before = gate.processCluster().checks().get(action).fallbacksRefused();
            final long result = gate.checkLimit(identifier, action);
            expect(result > 0, identifier + "'s " + action + " check was admitted beyond the cluster quota");
            if (gate.processCluster().checks().get(action).fallbacksRefused() == before)
            {
                return;
            }
            expect(System.nanoTime() - deadline < 0, identifier + "'s drained lease landed within 60 s");
            Thread.sleep(1);
        }
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
