package dev.floodgate.tools.load;

import dev.floodgate.JvmFlags;
import dev.floodgate.tools.CliException;
import dev.floodgate.tools.ExitCode;
import dev.floodgate.tools.format.Durations;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.LongUnaryOperator;

/**
 * Runs worker JVMs against one table with the discipline {@code demo} and {@code bench} share: start them all,
 * wait (bounded) until each has opened the table, release them together at one monotonic instant, show a
 * starting line and a progress line, wait (bounded) for them to finish, and reap every one of them on any failure, including
 * Ctrl-C of the parent.
 */
public final class LoadRun
{
    private static final long READY_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(120); // Chronicle's code generation on a busy host
    private static final long EXIT_GRACE_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long RELEASE_DELAY_NANOS = TimeUnit.MILLISECONDS.toNanos(300);

    /** Added by the command's thread, reaped by the shutdown hook's too. */
    private final List<WorkerProcess> workers = new CopyOnWriteArrayList<>();
    /** Held while a worker starts and while the reaper sets {@link #stopping}. */
    private final Object lock = new Object();
    /** Set by the reaper (shutdown hook or the run's end): no worker starts after it. */
    private boolean stopping;

    private LoadRun()
    {
    }

    /**
     * How long the workers may take to say READY: opening the table (Chronicle's code generation on a busy host),
     * plus the warm-up they run before READY.
     *
     * @param warmupNanos the workers' warm-up, 0 for none.
     * @return the READY timeout in nanoseconds.
     */
    public static long readyTimeoutNanos(final long warmupNanos)
    {
        return READY_TIMEOUT_NANOS + Math.max(0, warmupNanos);
    }

    /**
     * @param processes   worker JVMs.
     * @param mainClass   the class whose {@code main} runs the command line with the hidden {@code worker} command
     *                    ({@link WorkerCommand}): the CLI's, passed in so that this package names no CLI class.
     * @param jvmArgs     the workers' JVM options (heap, JIT), besides the engine's flags.
     * @param workerArgs  given the worker's number (from 1), its {@code worker} command's arguments.
     * @param logDir      where each worker's standard error goes.
     * @param durationNs  how long the workers run.
     * @param warmupNs    the warm-up each worker runs before it says READY, 0 for none.
     * @param alignStart  given the earliest start, returns the start to use (e.g. to keep a run inside one window).
     * @param out         where the progress line goes.
     * @param observer    told when the workers are released and when the run ends.
     * @return the finished workers, every one of which exited cleanly.
     * @throws CliException exit code 1 when a worker fails to start, report or finish.
     */
    public static List<WorkerProcess> run(
        final int processes,
        final String mainClass,
        final List<String> jvmArgs,
        final IntFunction<List<String>> workerArgs,
        final Path logDir,
        final long durationNs,
        final long warmupNs,
        final LongUnaryOperator alignStart,
        final PrintWriter out,
        final RunObserver observer)
    {
        final LoadRun run = new LoadRun();
        final java.util.concurrent.atomic.AtomicBoolean stopped = new java.util.concurrent.atomic.AtomicBoolean();
        final Runnable stop = () ->
        {
            run.reapAll();
            // under the flag's monitor: a shutdown hook that finds the command's thread inside stopped() waits for it
            // to finish, where it returned and the JVM halted mid-clean-up (found by review: Ctrl-C during the
            // normal path's deletion left the run's Redis buckets)
            synchronized (stopped)
            {
                if (stopped.compareAndSet(false, true))
                {
                    observer.stopped(); // after the reap: no worker can lease again behind what it cleans up
                }
            }
        };
        final Thread reaper = new Thread(stop, "floodgate-reaper");
        Runtime.getRuntime().addShutdownHook(reaper);
        try
        {
            return run.execute(processes, mainClass, jvmArgs, workerArgs, logDir, durationNs, warmupNs, alignStart, out,
                observer);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new CliException(ExitCode.REFUSED, "interrupted");
        }
        finally
        {
            stop.run();
            try
            {
                Runtime.getRuntime().removeShutdownHook(reaper);
            }
            catch (final IllegalStateException shuttingDown)
            {
                // the hook is running or will: it reaps too
            }
        }
    }

    private List<WorkerProcess> execute(
        final int processes,
        final String mainClass,
        final List<String> jvmArgs,
        final IntFunction<List<String>> workerArgs,
        final Path logDir,
        final long durationNs,
        final long warmupNs,
        final LongUnaryOperator alignStart,
        final PrintWriter out,
        final RunObserver observer) throws InterruptedException
    {
        // starting JVMs and letting Chronicle map the table takes seconds of silence on a busy host: say so first
        out.printf("starting %d worker JVM%s for %s ...%n", processes, processes == 1 ? "" : "s",
            Durations.nanos(durationNs));
        out.flush();
        for (int i = 1; i <= processes; i++)
        {
            try
            {
                final List<String> args = new ArrayList<>();
                args.add("worker");
                args.addAll(workerArgs.apply(i));
                args.addAll(List.of("--worker", Integer.toString(i)));
                final List<String> own = JvmFlags.javaCommand(mainClass,
                    System.getProperty("java.class.path"), jvmArgs, args);
                synchronized (lock)
                {
                    if (stopping)
                    {
                        // the JVM is shutting down (Ctrl-C) and the reaper has run or runs now: a worker started
                        // now would be missed by it and outlive the command
                        throw new CliException(ExitCode.REFUSED, "stopped while starting worker JVM " + i);
                    }
                    workers.add(WorkerProcess.start(i, own, logDir.resolve("worker-" + i + ".log")));
                }
            }
            catch (final IOException ex)
            {
                throw new CliException(ExitCode.REFUSED, "cannot start worker JVM " + i + ": " + ex.getMessage());
            }
        }
        final long readyDeadline = System.nanoTime() + readyTimeoutNanos(warmupNs);
        for (final WorkerProcess worker : workers)
        {
            if (!worker.awaitReady(readyDeadline))
            {
                refuseIfStopping();
                throw new CliException(ExitCode.REFUSED, "a worker did not open the table" + (warmupNs > 0 ?
                    " and finish its warm-up" : "") + " within " + Durations.nanos(readyTimeoutNanos(warmupNs)) +
                    ": " + worker.failure());
            }
        }
        final long start = alignStart.applyAsLong(System.nanoTime() + RELEASE_DELAY_NANOS);
        final long end = start + durationNs;
        for (final WorkerProcess worker : workers)
        {
            try
            {
                worker.release(start, end);
            }
            catch (final IOException ex)
            {
                refuseIfStopping();
                throw new CliException(ExitCode.REFUSED, "cannot release worker: " + worker.failure());
            }
        }
        observer.released(start, end);
        progress(out, start, end);
        observer.ended();
        final long exitDeadline = end + EXIT_GRACE_NANOS;
        for (final WorkerProcess worker : workers)
        {
            if (!worker.awaitExit(exitDeadline))
            {
                refuseIfStopping();
                throw new CliException(ExitCode.REFUSED, "a worker failed: " + worker.failure());
            }
        }
        return List.copyOf(workers);
    }

    /**
     * A worker the reaper ended (Ctrl-C, SIGTERM) is no worker's failure: "did not open the table within 2m00s:
     * worker 1 exited with 137" was printed a few seconds into a stopped demo.
     *
     * @throws CliException saying the command was stopped, when it is stopping.
     */
    private void refuseIfStopping()
    {
        synchronized (lock)
        {
            if (stopping)
            {
                throw new CliException(ExitCode.REFUSED, "stopped (Ctrl-C or a signal): the worker JVMs were ended");
            }
        }
    }

    private void progress(final PrintWriter out, final long start, final long end) throws InterruptedException
    {
        final boolean interactive = System.console() != null;
        final long stepNs = TimeUnit.MILLISECONDS.toNanos(interactive ? 200 : 1000);
        long next = Math.max(System.nanoTime(), start);
        while (true)
        {
            final long now = System.nanoTime();
            if (now - next < 0)
            {
                TimeUnit.NANOSECONDS.sleep(next - now); // the progress cadence, not a synchronisation
                continue;
            }
            final boolean last = now - end >= 0;
            long checks = 0;
            long admitted = 0;
            for (final WorkerProcess worker : workers)
            {
                checks += worker.checksSoFar();
                admitted += worker.admittedSoFar();
            }
            final String line = String.format("  running %s of %s: %d JVMs, %,d checks, %,d admitted",
                Durations.nanos(Math.max(0, Math.min(now, end) - start)), Durations.nanos(end - start),
                workers.size(), checks, admitted);
            if (interactive)
            {
                out.print("\r" + line + "   ");
                if (last)
                {
                    out.println();
                }
            }
            else
            {
                out.println(line);
            }
            out.flush();
            if (last)
            {
                return;
            }
            next += stepNs;
            if (next - end > 0)
            {
                next = end;
            }
        }
    }

    private void reapAll()
    {
        synchronized (lock)
        {
            stopping = true; // no worker starts after this: every one started is in the list
        }
        for (final WorkerProcess worker : workers)
        {
            worker.reap();
        }
    }
}
