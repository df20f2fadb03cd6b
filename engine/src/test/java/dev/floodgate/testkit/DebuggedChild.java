package dev.floodgate.testkit;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.Location;
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

    @Override
    public void close() throws InterruptedException
    {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
