package dev.floodgate.testkit;

import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.time.Instant;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * How {@link ChildJvm} starts a child: {@code ChildMain <main class> <args>} runs the main class, and a daemon
 * thread halts the child once the JVM that started it is gone. A test JVM killed outright (SIGKILL, where its
 * shutdown hook does not run) would otherwise leave children polling for a go or stop file nobody will create, or
 * holding a guard "forever", for as long as the host runs.
 *
 * <p>The starter is named on the command line ({@link #starterFlag}) and watched by its pid and start time: a child
 * started through a wrapper has the wrapper for a parent, which can outlive the starter ({@code sh -c} waiting for the
 * JVM) or be none at all (pid 1 of an {@code unshare --pid} namespace). Where the starter cannot be seen (a namespace
 * with a {@code /proc} of its own) the child watches its parent instead: halted once it has been reparented.
 */
public final class ChildMain
{
    private static final String STARTER = "floodgate.child.starter";
    private static final long POLL_NANOS = 500_000_000L;

    private ChildMain()
    {
    }

    /** @return the JVM flag that names this process as the starter of the child it is put on the command line of. */
    public static String starterFlag()
    {
        return "-D" + STARTER + "=" + ProcessHandle.current().pid();
    }

    public static void main(final String[] args) throws Throwable
    {
        final BooleanSupplier starterAlive = starterWatch();
        if (starterAlive != null)
        {
            final Thread watch = new Thread(() ->
            {
                while (starterAlive.getAsBoolean())
                {
                    LockSupport.parkNanos(POLL_NANOS);
                }
                Runtime.getRuntime().halt(3);
            }, "orphan-watch");
            watch.setDaemon(true);
            watch.start();
        }
        try
        {
            final Method main = Class.forName(args[0]).getMethod("main", String[].class);
            main.setAccessible(true); // a public class nested in a test class, which is not public
            main.invoke(null, (Object)Arrays.copyOfRange(args, 1, args.length));
        }
        catch (final InvocationTargetException ex)
        {
            throw ex.getCause(); // as the main class itself would have ended
        }
    }

    /** @return whether the starter (else the parent) still runs; null when there is neither to watch. */
    private static BooleanSupplier starterWatch()
    {
        final ProcessHandle self = ProcessHandle.current();
        final Optional<ProcessHandle> starter = Optional.ofNullable(Long.getLong(STARTER))
            .flatMap(ProcessHandle::of)
            .filter(handle -> handle.pid() != self.pid() && startedBeforeThisJvm(handle));
        if (starter.isPresent())
        {
            return starter.get()::isAlive; // pid and start time: a reused pid reads as gone
        }
        final long parent = parentPid();
        if (parent > 1) // in a pid namespace of its own (pid 1) there is no parent to watch
        {
            return () -> parentPid() == parent;
        }
        return null;
    }

    /**
     * Whether {@code handle} started before this JVM, as its starter did: the pid read in a {@code /proc} of another
     * namespace is somebody else's, started after this JVM (its own children). This JVM's start is its own record:
     * {@code ProcessHandle.current()} of pid 1 in a namespace that reads the host's {@code /proc} is the host's init.
     */
    private static boolean startedBeforeThisJvm(final ProcessHandle handle)
    {
        final Optional<Instant> started = handle.info().startInstant();
        return started.isPresent() &&
            started.get().isBefore(Instant.ofEpochMilli(ManagementFactory.getRuntimeMXBean().getStartTime()));
    }

    private static long parentPid()
    {
        return ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
    }
}
