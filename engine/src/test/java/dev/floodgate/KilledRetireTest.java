package dev.floodgate;

import com.sun.jdi.Location;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import dev.floodgate.store.CounterRegion;
import dev.floodgate.store.ProcessRegistry;
import dev.floodgate.testkit.DebuggedChild;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A process killed while it closes (SIGKILL, the OOM killer, systemd's stop timeout) must leave each of its checks
 * counted once in the node's totals. Close once folded the process's counter block into the retired block one
 * counter at a time, an atomic add then a store of 0: killed between the two, the counter was in both blocks, its
 * registry slot still owned, and the next process to claim the slot (or a janitor's {@code freeDead}) folded it
 * again, counted twice for good (found by review). The block now stays where it is and the slot's next owner
 * counts on from it.
 *
 * <p>The child says how many of its checks were admitted (all {@value #CHECKS} unless one's entry stayed out of
 * reach while the debugger held the JVM on a loaded host; a check refused so is no admission to count).
 *
 * <p>Deterministic: the closing child runs under the debugger and is killed at the last store of its close's
 * counter step: the zeroing after the add where close folds ({@code CounterRegion.retire}), else the clearing of its
 * registry slot's owner word ({@code ProcessRegistry.unregister}).
 */
@Timeout(120)
class KilledRetireTest
{
    private static final int CHECKS = 5;

    @TempDir
    Path dir;

    static FloodgateConfig config(final Path file)
    {
        return FloodgateConfig.builder().file(file).capacity(1_000)
            .limit(Action.AUTH, 1_000, FloodgateConfig.MAX_WINDOW_MS).build();
    }

    /** Child: opens the table, makes {@value #CHECKS} admitted checks, and closes (where it is killed). */
    public static final class CheckThenClose
    {
        public static void main(final String[] args)
        {
            try (Floodgate gate = Floodgate.open(config(Path.of(args[0]))))
            {
                int admitted = 0;
                for (int i = 0; i < CHECKS; i++)
                {
                    admitted += gate.checkLimit("10.0.0." + i, Action.AUTH) == Floodgate.ADMITTED ? 1 : 0;
                }
                // a check whose entry stayed out of reach while the debugger held the JVM is refused, not admitted
                System.out.println("ADMITTED " + admitted);
                System.out.println("CLOSING");
            }
            System.out.println("CLOSED");
        }
    }

    @Test
    void shouldNotCountAClosingProcessesChecksTwiceWhenItIsKilledInsideTheFold() throws Exception
    {
        final Path file = dir.resolve("t.map");
        boolean killedInFold = false;
        int breakpoints = 0;
        final StringBuilder killedAt = new StringBuilder();
        final String transcript;
        try (DebuggedChild child = DebuggedChild.start(CheckThenClose.class, List.of(file.toString())))
        {
            final VirtualMachine vm = child.vm();
            for (final String name : List.of(CounterRegion.class.getName(), ProcessRegistry.class.getName()))
            {
                final ClassPrepareRequest prepare = vm.eventRequestManager().createClassPrepareRequest();
                prepare.addClassFilter(name);
                prepare.enable();
            }
            vm.resume();
            while (!killedInFold)
            {
                final EventSet events;
                try
                {
                    events = vm.eventQueue().remove(60_000);
                }
                catch (final com.sun.jdi.VMDisconnectedException ended)
                {
                    throw new AssertionError("the child closed without reaching the store it is to be killed at (" +
                        breakpoints + " breakpoints set: the test names a line the code no longer has)", ended);
                }
                assertNotNull(events, "the child went quiet; transcript: " + child.transcript());
                for (final Event event : events)
                {
                    if (event instanceof ClassPrepareEvent prepared)
                    {
                        final boolean counters = prepared.referenceType().name().equals(CounterRegion.class.getName());
                        final List<com.sun.jdi.Method> methods = prepared.referenceType()
                            .methodsByName(counters ? "retire" : "unregister");
                        final String store = counters ? "putLongRelease(offset, 0)" : "PROCESS_OWNER";
                        for (final com.sun.jdi.Method method : methods)
                        {
                            for (final Location at : method.allLineLocations())
                            {
                                if (sourceLine(at, prepared.referenceType().name()).contains(store))
                                {
                                    final BreakpointRequest stop = vm.eventRequestManager().createBreakpointRequest(at);
                                    stop.setSuspendPolicy(EventRequest.SUSPEND_ALL);
                                    stop.enable();
                                    breakpoints++;
                                }
                            }
                        }
                    }
                    else if (event instanceof BreakpointEvent hit)
                    {
                        // where the child was killed, for a failure to name (the transcript may lag behind the
                        // child here: the drain thread reads its lines when it gets to)
                        killedAt.append("killed at:\n");
                        for (final com.sun.jdi.StackFrame frame : hit.thread().frames())
                        {
                            killedAt.append("  at ").append(frame.location()).append('\n');
                        }
                        // SIGKILL inside close's counter step, keeping the lines printed before it (the process's
                        // own destroyForcibly dropped those still in the pipe: a failure once in a whole-suite run)
                        child.kill();
                        killedInFold = true;
                    }
                }
                if (!killedInFold)
                {
                    events.resume();
                }
            }
            assertTrue(child.process().waitFor(30, TimeUnit.SECONDS), "the child died");
            child.awaitOutput();
            transcript = child.transcript();
        }
        assertTrue(transcript.contains("CLOSING"), "killed in close: " + killedAt + transcript);
        assertFalse(transcript.contains("CLOSED"), "killed in close: " + transcript);
        final java.util.regex.Matcher said = java.util.regex.Pattern.compile("ADMITTED (\\d+)").matcher(transcript);
        assertTrue(said.find(), transcript);
        final long childAdmitted = Long.parseLong(said.group(1));
        assertTrue(childAdmitted > 0, "the child's checks were admitted: " + transcript);
        try (Floodgate next = Floodgate.open(config(file)))
        {
            next.cleanup(); // frees dead processes' slots (the claim above may already have folded it)
            final long admitted = next.checks().get(Action.AUTH).admitted();
            assertEquals(childAdmitted, admitted, "the node admitted " + childAdmitted + " AUTH checks and stats says " +
                admitted);
        }
    }

    private static String sourceLine(final Location location, final String className)
    {
        try
        {
            final List<String> lines = java.nio.file.Files.readAllLines(Path.of(System.getProperty("user.dir"),
                "src/main/java", className.replace('.', '/') + ".java"));
            return lines.get(location.lineNumber() - 1);
        }
        catch (final java.io.IOException ex)
        {
            throw new java.io.UncheckedIOException(ex);
        }
    }
}
