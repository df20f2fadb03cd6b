package dev.floodgate.testkit;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * How {@link ChildJvm} starts a child: {@code ChildMain <main class> <args>} runs the main class, and a daemon
 * thread halts the child once the process that started it is gone (it has been reparented). A test JVM killed
 * outright (SIGKILL, where its shutdown hook does not run) would otherwise leave children polling for a go or stop
 * file nobody will create, or holding a guard "forever", for as long as the host runs.
 */
public final class ChildMain
{
    private static final long POLL_NANOS = 500_000_000L;

    private ChildMain()
    {
    }

    public static void main(final String[] args) throws Throwable
    {
        final long parent = parentPid();
        if (parent > 1) // in a pid namespace of its own (pid 1) there is no parent to watch
        {
            final Thread watch = new Thread(() ->
            {
                while (parentPid() == parent)
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

    private static long parentPid()
    {
        return ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(-1L);
    }
}
