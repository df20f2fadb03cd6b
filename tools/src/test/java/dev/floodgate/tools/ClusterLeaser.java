package dev.floodgate.tools;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;
import dev.floodgate.testkit.ClusterKit;
import dev.floodgate.testkit.GoFile;

import java.nio.file.Path;

/**
 * A broker JVM with a cluster quota on PUBLISH, for {@link PolicySetClusterNoteTest}: 5 an hour across the cluster,
 * leased 5 at a time (the whole bucket in one lease), its node quota 1,000 an hour, refusing without a lease.
 * DASHBOARD_API keeps its default node quota and no cluster quota. Spends one token of alice's PUBLISH (checking
 * until her lease has landed: a loaded host may answer a cold JVM's first lease after a check's 50 ms) and prints
 * {@code LEASED}; once the go file exists (the test has switched PUBLISH's node quota off meanwhile), checks alice's
 * PUBLISH 10 times more and prints {@code AFTER admitted=A refused=R}: the 4 tokens her lease still holds, then the
 * cluster's refusals, the node's quota being off.
 *
 * <p>Arguments: file, Redis URI, go file.
 */
public final class ClusterLeaser
{
    private static final int CHECKS_AFTER = 10;

    private ClusterLeaser()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        final FloodgateConfig config = ClusterKit.publishNode(Path.of(args[0]), args[1], 5, 3_600_000, 5)
            .limit(Action.PUBLISH, 1_000, 3_600_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            ClusterKit.awaitAdmitted(gate, "alice", Action.PUBLISH);
            System.out.println("LEASED");
            System.out.flush();
            GoFile.await(Path.of(args[2]));
            int admitted = 0;
            for (int i = 0; i < CHECKS_AFTER; i++)
            {
                if (gate.checkLimit("alice", Action.PUBLISH) == Floodgate.ADMITTED)
                {
                    admitted++;
                }
            }
            System.out.println("AFTER admitted=" + admitted + " refused=" + (CHECKS_AFTER - admitted) +
                " nodeLimit=" + gate.policy().rule(Action.PUBLISH).limit());
            System.out.flush();
        }
    }
}
