package dev.floodgate.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The checker JVMs of a soak over several tables ({@link ClusterSoak}'s nodes; {@link SoakDriver} drives the soaks
 * of one table), as the parent stops, continues, kills, retires and replaces them: each child writes its calls
 * through a {@link SoakLog} to files named by its index, and ends (closing its engine) with a
 * {@code RESULT ops=N ... errors=E} line once its stop file exists. A replacement takes its predecessor's group (its
 * node) and is not awaited: a stop or a kill may land while it opens its table. Not thread-safe.
 */
public final class SoakChildren implements AutoCloseable
{
    /** Starts a child of {@code group} writing its calls to {@code admissions} and {@code inflight}. */
    @FunctionalInterface
    public interface Starter
    {
        ChildJvm start(int group, Path admissions, Path inflight, Path stop);
    }

    private final Path dir;
    private final int threads;
    private final Starter starter;
    private final List<ChildJvm> children = new ArrayList<>();
    private final List<Integer> groups = new ArrayList<>();
    private final List<Long> killedAt = new ArrayList<>(); // per child started: when it was killed, or 0
    private final Map<Integer, Long> stoppedUntil = new HashMap<>(); // child: when to continue it
    private final List<Integer> running = new ArrayList<>();
    private final List<Integer> retired = new ArrayList<>(); // told to end, replaced, not yet awaited
    private final List<String> errors = new ArrayList<>();
    private long pauses;
    private long kills;

    /** @param threads each child's calling threads: its slots in the in-flight file. */
    public SoakChildren(final Path dir, final int threads, final Starter starter)
    {
        this.dir = dir;
        this.threads = threads;
        this.starter = starter;
    }

    /** Starts a child of {@code group}. @return its index. */
    public int start(final int group)
    {
        final int c = children.size();
        children.add(starter.start(group, admissions(c), inflight(c), stop(c)));
        groups.add(group);
        killedAt.add(0L);
        running.add(c);
        return c;
    }

    /** Awaits the READY line of every child running. */
    public void awaitReady(final long seconds)
    {
        for (final int c : running)
        {
            children.get(c).awaitLine("READY", seconds);
        }
    }

    /**
     * Continues the children whose stop is due, and replaces each that ended by itself: an error to report, and its
     * calls in flight are judged as a kill's.
     */
    public void tend(final long nowNanos) throws Exception
    {
        for (final int c : List.copyOf(running))
        {
            if (!ProcessHandle.of(children.get(c).pid()).map(ProcessHandle::isAlive).orElse(false))
            {
                errors.add("child " + c + " ended by itself: " + children.get(c).transcript());
                killedAt.set(c, System.nanoTime());
                replace(c);
            }
            else if (stoppedUntil.containsKey(c) && nowNanos - stoppedUntil.get(c) >= 0)
            {
                Signals.send("CONT", children.get(c).pid());
                stoppedUntil.remove(c);
            }
        }
    }

    /** @return a running child, at random. */
    public int pick(final Random random)
    {
        return running.get(random.nextInt(running.size()));
    }

    /** Stops child {@code c} (SIGSTOP) until {@code untilNanos}, unless it is stopped already. */
    public void stop(final int c, final long untilNanos) throws Exception
    {
        if (!stoppedUntil.containsKey(c))
        {
            Signals.send("STOP", children.get(c).pid());
            stoppedUntil.put(c, untilNanos);
            pauses++;
        }
    }

    /** @return whether child {@code c} is stopped now. */
    public boolean stopped(final int c)
    {
        return stoppedUntil.containsKey(c);
    }

    /** Kills child {@code c} (SIGKILL) and starts another in its group. */
    public void killAndReplace(final int c)
    {
        children.get(c).kill();
        killedAt.set(c, System.nanoTime());
        kills++;
        replace(c);
    }

    /**
     * Tells every running child of {@code group} to end (continued first when stopped) and starts another in its
     * place at once: a graceful restart, whose close does what an engine's close does (the node's last JVM gives
     * its leases back).
     */
    public void retire(final int group) throws Exception
    {
        for (final int c : List.copyOf(running))
        {
            if (groups.get(c) == group)
            {
                if (stoppedUntil.containsKey(c))
                {
                    Signals.send("CONT", children.get(c).pid());
                }
                Files.createFile(stop(c));
                retired.add(c);
                replace(c);
            }
        }
    }

    /** @return the group of child {@code c}. */
    public int group(final int c)
    {
        return groups.get(c);
    }

    private void replace(final int c)
    {
        stoppedUntil.remove(c);
        running.remove((Integer)c);
        start(groups.get(c));
    }

    /**
     * Continues every child, creates their stop files, and awaits each RESULT, the retired children's too.
     *
     * @return the calls of the children that ran to the end (their {@code ops}).
     */
    public long finish() throws Exception
    {
        for (final int c : running)
        {
            if (stoppedUntil.remove(c) != null)
            {
                Signals.send("CONT", children.get(c).pid());
            }
            Files.createFile(stop(c));
        }
        long ops = 0;
        final List<Integer> ending = new ArrayList<>(retired);
        ending.addAll(running);
        for (final int c : ending)
        {
            final ChildJvm child = children.get(c);
            final String result = child.awaitLine("RESULT", 120);
            if (child.awaitExit(60) != 0 || Worker.field(result, "errors") != 0)
            {
                errors.add("child " + c + ": " + child.transcript());
            }
            ops += Worker.field(result, "ops");
        }
        return ops;
    }

    /**
     * Reads every child's admissions into {@code calls} (per series), and for a killed child each call it had in
     * flight that its admissions lack, as a call that may have been admitted, ending at the kill.
     *
     * @return the calls killed in flight.
     */
    public long calls(final List<List<SoakCall>> calls) throws Exception
    {
        long inFlight = 0;
        for (int c = 0; c < children.size(); c++)
        {
            inFlight += SoakLog.read(admissions(c), inflight(c), threads, killedAt.get(c), calls);
        }
        return inFlight;
    }

    /** @return what went wrong in children: ended by themselves, failed, or counted errors. */
    public List<String> errors()
    {
        return errors;
    }

    /** @return the children retired. */
    public long retirements()
    {
        return retired.size();
    }

    /** @return the stops sent. */
    public long pauses()
    {
        return pauses;
    }

    /** @return the kills. */
    public long kills()
    {
        return kills;
    }

    private Path admissions(final int c)
    {
        return dir.resolve("admissions-" + c);
    }

    private Path inflight(final int c)
    {
        return dir.resolve("inflight-" + c);
    }

    private Path stop(final int c)
    {
        return dir.resolve("stop-" + c);
    }

    @Override
    public void close()
    {
        children.forEach(ChildJvm::close);
    }
}
