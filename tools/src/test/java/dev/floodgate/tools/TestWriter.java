package dev.floodgate.tools;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Path;

/**
 * Runs in its own JVM (as a broker would) and writes a known state into a table, so the CLI under test always
 * reads data another process wrote. Limits: auth 10 per hour, publish 100 per hour.
 */
public final class TestWriter
{
    /** An identifier with a terminal escape in it, as an attacker would choose. */
    public static final String EVIL = "\u001b[2Jevil\u0007";
    /** A 60-character identifier: longer than a label, so it is stored cut. */
    public static final String LONG = "x".repeat(60);

    private TestWriter()
    {
    }

    /** @param args the table file. */
    public static void main(final String[] args)
    {
        final FloodgateConfig config = FloodgateConfig.builder().file(Path.of(args[0])).capacity(1000)
            .limit(Action.AUTH, 10, 3_600_000).limit(Action.PUBLISH, 100, 3_600_000).build();
        try (Floodgate gate = Floodgate.open(config))
        {
            final int ip = admitted(gate, "10.0.0.1", Action.AUTH, 15, true);
            final int evil = admitted(gate, EVIL, Action.AUTH, 12, true);
            final int alice = admitted(gate, "alice", Action.PUBLISH, 150, false);
            final int longId = admitted(gate, LONG, Action.AUTH, 1, true);
            System.out.println("ADMITTED " + ip + " " + evil + " " + alice + " " + longId);
        }
    }

    private static int admitted(final Floodgate gate, final String id, final Action action, final int n,
        final boolean bucket)
    {
        int admitted = 0;
        for (int i = 0; i < n; i++)
        {
            if ((bucket ? gate.checkLimit(id, action) : gate.checkLimitInCaller(id, action)) == Floodgate.ADMITTED)
            {
                admitted++;
            }
        }
        return admitted;
    }
}
