package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A broker exits (System.exit, or SIGTERM's shutdown) while its threads are checking. Chronicle Map's own
 * close-on-exit hook unmapped the table during the JVM's shutdown, under those threads: the JVM died of SIGSEGV in
 * a compare-and-set on the unmapped table (an hs_err file, exit 134) instead of exiting (found when a bench worker,
 * which exits when its parent is gone, crashed so). The table is never unmapped at exit now; the kernel drops the
 * mapping with the process.
 */
@Timeout(120)
class ExitWhileCheckingTest
{
    @TempDir
    Path dir;

    /** Child: two threads check both doors as fast as they go; once both are warm, the JVM exits. */
    public static final class Exiter
    {
        public static void main(final String[] args) throws Exception
        {
            final Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(Path.of(args[0])).capacity(1_000)
                .limit(Action.PUBLISH, 1_000_000, 1_000).build());
            final AtomicLong checks = new AtomicLong();
            for (int t = 0; t < 2; t++)
            {
                final String key = "user-" + t;
                final Thread thread = new Thread(() ->
                {
                    while (true)
                    {
                        gate.checkLimitInCaller(key, Action.PUBLISH);
                        gate.checkLimit(key, Action.PUBLISH);
                        checks.incrementAndGet();
                    }
                }, "checker-" + t);
                thread.setDaemon(true);
                thread.start();
            }
            while (checks.get() < 200_000)
            {
                Thread.onSpinWait();
            }
            System.out.println("EXITING");
            System.out.flush();
            System.exit(0);
        }
    }

    @Test
    void shouldExitCleanlyWhileThreadsAreChecking() throws Exception
    {
        for (int round = 0; round < 3; round++)
        {
            final List<String> flags = new ArrayList<>(JvmFlags.required());
            flags.add("-XX:ErrorFile=" + dir.resolve("hs_err_%p.log")); // a crash's log in the temporary directory
            try (ChildJvm child = ChildJvm.startWithFlags(flags, Exiter.class,
                dir.resolve("exit-" + round + ".map").toString()))
            {
                child.awaitLine("EXITING", 60);
                final int code = child.awaitExit(60);
                assertEquals(0, code, "round " + round + ": the JVM crashed at exit (" + crashLogs() + "): " +
                    child.transcript());
            }
        }
    }

    private List<Path> crashLogs() throws Exception
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.filter(f -> f.getFileName().toString().startsWith("hs_err")).toList();
        }
    }
}
