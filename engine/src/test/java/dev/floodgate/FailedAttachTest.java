package dev.floodgate;

import dev.floodgate.testkit.ChildJvm;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.security.Permission;

/**
 * {@code Attachment.open} closed (and unmapped) the table when anything after the {@code BackgroundAgent} failed,
 * but never closed the agent: its clock thread kept heartbeating into the unmapped file record, and the JVM died
 * with SIGSEGV (found by review; fails before). Here
 * the janitor thread cannot be created (as when a container's thread limit is reached: "unable to create native
 * thread"); a {@code SecurityManager} refuses just that thread, deterministically.
 */
@Timeout(120)
class FailedAttachTest
{
    @TempDir
    Path dir;

    /** Child: opens with the janitor thread refused, then waits for the clock thread to stop. */
    public static final class RefusedJanitor
    {
        @SuppressWarnings("removal")
        public static void main(final String[] args) throws Exception
        {
            final FloodgateConfig config = FloodgateConfig.builder().file(Path.of(args[0])).capacity(1_000)
                .limit(Action.PUBLISH, 3, FloodgateConfig.MAX_WINDOW_MS).build();
            Floodgate.open(config).close(); // the file exists and has a policy
            System.setSecurityManager(new SecurityManager()
            {
                @Override
                public void checkPermission(final Permission perm)
                {
                }

                @Override
                public void checkAccess(final ThreadGroup group)
                {
                    final boolean janitor = StackWalker.getInstance().walk(frames -> frames.anyMatch(f ->
                        f.getClassName().equals(BackgroundAgent.class.getName()) &&
                            f.getMethodName().startsWith("lambda$")));
                    if (janitor)
                    {
                        throw new SecurityException("no thread for the janitor (as at a thread limit)");
                    }
                }
            });
            try
            {
                Floodgate.open(config);
                System.out.println("OPENED");
            }
            catch (final RuntimeException ex)
            {
                System.out.println("OPEN FAILED " + ex);
            }
            // a deadline, not a wait: the loop ends when the clock thread does; 20 s for a loaded host
            final long deadline = System.nanoTime() + 20_000_000_000L;
            while (clockAlive() && System.nanoTime() < deadline)
            {
                Thread.sleep(10);
            }
            System.out.println(clockAlive() ? "CLOCK STILL RUNNING" : "CLOCK STOPPED");
        }

        private static boolean clockAlive()
        {
            return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("floodgate-clock") && t.isAlive());
        }
    }

    @Test
    void shouldStopTheClockThreadWhenAnOpenFailsAfterStartingIt() throws Exception
    {
        try (ChildJvm child = ChildJvm.startWithFlags(new java.util.ArrayList<>(
            java.util.List.of("-XX:ErrorFile=" + dir.resolve("hs_err_%p.log"))) {{ addAll(0, JvmFlags.required()); }},
            RefusedJanitor.class,
            dir.resolve("t.map").toString()))
        {
            // the open fails (OPEN FAILED); on main the clock thread's next heartbeat writes the unmapped record: the child dies of SIGSEGV
            child.awaitLine("CLOCK STOPPED", 60);
        }
    }
}
