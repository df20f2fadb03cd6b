package dev.floodgate.testkit;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.IncompatibleThreadStateException;
import com.sun.jdi.Location;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.IllegalConnectorArgumentsException;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import dev.floodgate.JvmFlags;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A child JVM started suspended under the debugger (JDWP on a free loopback port) and attached to, so a test can
 * stop it at a chosen line (a breakpoint) and act there: kill it, or run a racing step. Its output is collected as a
 * transcript. Closing it kills the child.
 */
public final class DebuggedChild implements AutoCloseable
{
    private final Process process;
    private final StringBuilder transcript = new StringBuilder(); // guarded by itself
    private final Thread drain;
    private final VirtualMachine vm;

    private DebuggedChild(final Process process, final BufferedReader out, final String port)
        throws IOException, IllegalConnectorArgumentsException
    {
        this.process = process;
        this.drain = new Thread(() ->
        {
            try
            {
                for (String line; (line = out.readLine()) != null; )
                {
                    synchronized (transcript)
                    {
                        transcript.append(line).append('\n');
                        transcript.notifyAll();
                    }
                }
            }
            catch (final IOException ignored)
            {
                // the child ended
            }
        });
        drain.setDaemon(true);
        drain.start();
        final AttachingConnector attach = Bootstrap.virtualMachineManager().attachingConnectors().stream()
            .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst().orElseThrow();
        final Map<String, Connector.Argument> arguments = attach.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(port);
        this.vm = attach.attach(arguments);
    }

    /**
     * Starts {@code main} suspended under the debugger and attaches; the caller sets its requests, then resumes it.
     *
     * @param main the child's main class.
     * @param args its arguments.
     */
    public static DebuggedChild start(final Class<?> main, final List<String> args) throws Exception
    {
        final Process process = new ProcessBuilder(JvmFlags.javaCommand(main.getName(),
            System.getProperty("java.class.path"), List.of("-Xmx192m", "-XX:+UseSerialGC",
                "-agentlib:jdwp=transport=dt_socket,server=y,suspend=y,address=127.0.0.1:0"), args))
            .redirectErrorStream(true).start();
        try
        {
            final BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
            final String listening = out.readLine();
            final Matcher port = Pattern.compile("address: (?:[^:]*:)?(\\d+)").matcher(String.valueOf(listening));
            if (!port.find())
            {
                throw new IllegalStateException("jdwp: " + listening);
            }
            return new DebuggedChild(process, out, port.group(1));
        }
        catch (final Exception | Error ex)
        {
            process.destroyForcibly();
            throw ex;
        }
    }

    /** @return the debugger's view of the child. */
    public VirtualMachine vm()
    {
        return vm;
    }

    /** @return the child process. */
    public Process process()
    {
        return process;
    }

    /** @return what the child printed so far; complete once it ended and {@link #awaitOutput} returned. */
    public String transcript()
    {
        synchronized (transcript)
        {
            return transcript.toString();
        }
    }

    /** Waits for the child's output to end (it ended). */
    public void awaitOutput() throws InterruptedException
    {
        drain.join(10_000);
    }

    /**
     * SIGKILLs the child (even stopped at a breakpoint) and keeps what it printed: the transcript is whole once
     * {@link #awaitOutput} returns. Not {@link Process#destroyForcibly}, which also closes this side of the child's
     * output pipe: lines the child printed that the drain had not read yet were dropped, and a child killed in its
     * close read as one killed before its last lines (KilledRetireTest, once in a whole-suite run).
     */
    public void kill()
    {
        process.toHandle().destroyForcibly();
    }

    /** What a test does while the child is stopped at a breakpoint. */
    @FunctionalInterface
    public interface AtBreakpoint
    {
        /** @param hit the breakpoint's event: its thread's frames are the child's, stopped. */
        void at(BreakpointEvent hit) throws Exception;
    }

    /**
     * Resumes the child and runs it to its end, the whole child stopped at the entry of {@code className}'s first
     * method named {@code method} each time one of its threads gets there, while {@code atEntry} runs; then waits for
     * its output to end.
     */
    public void runStoppingAtEntry(final String className, final String method, final AtBreakpoint atEntry)
        throws Exception
    {
        final ClassPrepareRequest prepare = vm.eventRequestManager().createClassPrepareRequest();
        prepare.addClassFilter(className);
        prepare.enable();
        vm.resume();
        boolean running = true;
        while (running)
        {
            final EventSet events = vm.eventQueue().remove(60_000);
            if (events == null)
            {
                throw new AssertionError("the child went quiet: " + transcript());
            }
            for (final Event event : events)
            {
                if (event instanceof ClassPrepareEvent prepared)
                {
                    final Location at = prepared.referenceType().methodsByName(method).get(0).location();
                    final BreakpointRequest stop = vm.eventRequestManager().createBreakpointRequest(at);
                    stop.setSuspendPolicy(EventRequest.SUSPEND_ALL);
                    stop.enable();
                }
                else if (event instanceof BreakpointEvent hit)
                {
                    atEntry.at(hit);
                }
                else if (event instanceof VMDeathEvent || event instanceof VMDisconnectEvent)
                {
                    running = false;
                }
            }
            if (running)
            {
                events.resume();
            }
        }
        if (!process.waitFor(30, TimeUnit.SECONDS))
        {
            throw new AssertionError("the child did not end: " + transcript());
        }
        awaitOutput();
    }

    /**
     * Resumes the child until one of its threads enters {@code className}'s first method named {@code method} with
     * {@code when} true there, and returns that hit with the whole child stopped at it (the breakpoint dropped), so a
     * test can interleave two children: stop one, run the other to a point, then {@link #detach} the first.
     *
     * @throws AssertionError when the child ends, or goes a minute without a hit, first.
     */
    public BreakpointEvent runUntilEntry(final String className, final String method,
        final Predicate<BreakpointEvent> when) throws Exception
    {
        return runUntilEntry(className, List.of(method), when);
    }

    /** {@link #runUntilEntry(String, String, Predicate)} at the entry of any of {@code methods}. */
    public BreakpointEvent runUntilEntry(final String className, final List<String> methods,
        final Predicate<BreakpointEvent> when) throws Exception
    {
        final List<com.sun.jdi.ReferenceType> loaded = vm.classesByName(className);
        final List<BreakpointRequest> stops = new java.util.ArrayList<>();
        if (loaded.isEmpty())
        {
            final ClassPrepareRequest prepare = vm.eventRequestManager().createClassPrepareRequest();
            prepare.addClassFilter(className);
            prepare.enable();
        }
        else
        {
            methods.forEach(method -> stops.add(breakAt(loaded.get(0), method)));
        }
        vm.resume();
        while (true)
        {
            final EventSet events = vm.eventQueue().remove(60_000);
            if (events == null)
            {
                throw new AssertionError("the child went quiet: " + transcript());
            }
            for (final Event event : events)
            {
                if (event instanceof ClassPrepareEvent prepared)
                {
                    event.request().disable();
                    methods.forEach(method -> stops.add(breakAt(prepared.referenceType(), method)));
                }
                else if (event instanceof BreakpointEvent hit && when.test(hit))
                {
                    stops.forEach(EventRequest::disable);
                    return hit; // the event set stays suspended
                }
                else if (event instanceof VMDeathEvent || event instanceof VMDisconnectEvent)
                {
                    throw new AssertionError("the child ended before " + className + "." + methods + ": " +
                        transcript());
                }
            }
            events.resume();
        }
    }

    private BreakpointRequest breakAt(final com.sun.jdi.ReferenceType type, final String method)
    {
        final BreakpointRequest stop = vm.eventRequestManager().createBreakpointRequest(
            type.methodsByName(method).get(0).location());
        stop.setSuspendPolicy(EventRequest.SUSPEND_ALL);
        stop.enable();
        return stop;
    }

    /** @return the name of the method {@code depth} frames above the breakpoint {@code hit} (1: its caller). */
    public static String caller(final BreakpointEvent hit, final int depth)
    {
        try
        {
            return hit.thread().frame(depth).location().method().name();
        }
        catch (final IncompatibleThreadStateException ex)
        {
            throw new AssertionError(ex);
        }
    }

    /**
     * Waits, the child running on, until its thread named {@code threadName} is blocked entering a {@code synchronized}
     * block on an object of class {@code monitorClass}: a state that proves a thread got to a point and waits there,
     * where a fixed wait only hopes it did.
     *
     * @return true once it is; false when the child ended first.
     * @throws AssertionError when neither within {@code seconds}.
     */
    public boolean awaitBlockedOnMonitor(final String threadName, final String monitorClass, final long seconds)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (process.isAlive())
        {
            try
            {
                if (blockedOnMonitor(threadName, monitorClass))
                {
                    return true;
                }
            }
            catch (final VMDisconnectedException ended)
            {
                // it is ending: the loop's test sees it gone
                process.waitFor(10, TimeUnit.SECONDS);
            }
            if (System.nanoTime() - deadline > 0)
            {
                throw new AssertionError("the child's thread " + threadName + " was not blocked on a " + monitorClass +
                    " within " + seconds + " s: " + transcript());
            }
            TimeUnit.MILLISECONDS.sleep(10);
        }
        return false;
    }

    private boolean blockedOnMonitor(final String threadName, final String monitorClass)
    {
        for (final ThreadReference thread : vm.allThreads())
        {
            if (thread.name().equals(threadName) && thread.status() == ThreadReference.THREAD_STATUS_MONITOR)
            {
                thread.suspend(); // the contended monitor is read from a suspended thread
                try
                {
                    final ObjectReference monitor = thread.currentContendedMonitor();
                    return monitor != null && monitor.referenceType().name().equals(monitorClass);
                }
                catch (final IncompatibleThreadStateException ex)
                {
                    return false;
                }
                finally
                {
                    thread.resume();
                }
            }
        }
        return false;
    }

    /** Lets the child run on, free of the debugger: its requests are dropped and its stopped threads resumed. */
    public void detach()
    {
        vm.dispose();
    }

    /**
     * @param prefix how the awaited line starts.
     * @return the first line of the child's output starting with {@code prefix}, once printed.
     * @throws AssertionError when none came in {@code seconds}, or the child's output ended without it.
     */
    public String awaitLine(final String prefix, final long seconds) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        synchronized (transcript)
        {
            while (true)
            {
                for (final String line : transcript.toString().split("\n"))
                {
                    if (line.startsWith(prefix))
                    {
                        return line;
                    }
                }
                final long left = deadline - System.nanoTime();
                if (left <= 0 || !drain.isAlive())
                {
                    throw new AssertionError("no '" + prefix + "' line from the child in " + seconds + " s: " +
                        transcript);
                }
                TimeUnit.NANOSECONDS.timedWait(transcript, Math.min(left, 100_000_000L));
            }
        }
    }

    @Override
    public void close() throws InterruptedException
    {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
