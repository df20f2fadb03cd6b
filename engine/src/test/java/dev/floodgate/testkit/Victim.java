package dev.floodgate.testkit;

import dev.floodgate.Action;
import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Path;

/**
 * A JVM that is killed with SIGKILL at random moments: it spends nearly all its time inside table operations
 * (inserting new keys and running janitor passes that remove entries), so a kill usually lands while it holds
 * the table guard and Chronicle Map segment locks. It also checks the survivors' hot keys, so its admissions
 * count against the same quotas; it prints each admission as it happens ({@code A}), so the test can count
 * them even though the process never exits by itself.
 *
 * <pre>args: file limit graceMs</pre>
 */
public final class Victim
{
    private Victim()
    {
    }

    public static void main(final String[] args)
    {
        final FloodgateConfig config = FloodgateConfig.builder().file(Path.of(args[0])).capacity(200_000)
            .limit(Action.PUBLISH, Long.parseLong(args[1]), FloodgateConfig.MAX_WINDOW_MS)
            .limit(Action.AUTH, Long.parseLong(args[1]), FloodgateConfig.MAX_WINDOW_MS)
            .limit(Action.SUBSCRIBE, 1_000, 20)
            .reclaimGraceMs(Long.parseLong(args[2])).build();
        final Floodgate gate = Floodgate.open(config);
        final String pid = Long.toString(ProcessHandle.current().pid());
        final Thread janitor = new Thread(() ->
        {
            while (true)
            {
                gate.cleanup();
            }
        }, "janitor");
        janitor.setDaemon(true);
        janitor.start();
        System.out.println("READY " + pid);
        System.out.flush();
        for (long i = 0; ; i++)
        {
            gate.checkLimitInCaller("victim-" + pid + "-" + i, Action.SUBSCRIBE);
            gate.reset("victim-" + pid + "-" + (i / 2), Action.SUBSCRIBE);
            if ((i & 63) == 0)
            {
                if (gate.checkLimitInCaller("hot-window", Action.PUBLISH) == Floodgate.ADMITTED)
                {
                    System.out.println("A window");
                }
                if (gate.checkLimit("hot-bucket", Action.AUTH) == Floodgate.ADMITTED)
                {
                    System.out.println("A bucket");
                }
            }
        }
    }
}
