package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A JVM that inserts new keys as fast as it can (fresh IPs on the bucket door, fresh users on the window door),
 * so that a SIGSTOP usually lands while it holds a segment's guard, until its stop file appears.
 *
 * <pre>args: file stopFile</pre>
 */
public final class Inserter
{
    private static final long BOUND = 60_000;

    private Inserter()
    {
    }

    public static void main(final String[] args)
    {
        final Path stop = Path.of(args[1]);
        final String pid = Long.toString(ProcessHandle.current().pid());
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(Path.of(args[0])).capacity(200_000)
            .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build()))
        {
            System.out.println("READY " + pid);
            System.out.flush();
            long i = 0;
            while (i % 1_000 != 0 || !Files.exists(stop))
            {
                // new keys up to a bound; then the same keys again, reset first: still a locked operation each
                final String id = "inserter-" + pid + "-" + i % BOUND;
                if (i >= BOUND)
                {
                    gate.reset(id, Action.AUTH);
                }
                gate.checkLimit(id, Action.AUTH);
                gate.checkLimitInCaller(id, Action.PUBLISH);
                i++;
            }
            System.out.println("RESULT inserted=" + 2 * i);
        }
    }
}
