package dev.floodgate.tools.load;

import dev.floodgate.Floodgate;
import org.HdrHistogram.Histogram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.DataFormatException;

/**
 * The parent's handle on one worker JVM: starts it, reads its report lines on a daemon thread, releases it and
 * reaps it. Standard error goes to a log file, shown when the worker fails.
 */
public final class WorkerProcess
{
    private final int index;
    private final Process process;
    private final Path log;
    private final CountDownLatch ready = new CountDownLatch(1);
    private final CountDownLatch done = new CountDownLatch(1);
    private final Map<String, long[]> keys = new LinkedHashMap<>();
    private volatile long checks;
    private volatile long admitted;
    private volatile long finalChecks = -1;
    private volatile long elapsedNanos;
    private volatile Histogram histogram;
    private volatile String protocolError;

    private WorkerProcess(final int index, final Process process, final Path log)
    {
        this.index = index;
        this.process = process;
        this.log = log;
        final Thread reader = new Thread(this::read, "worker-" + index + "-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * @param index   the worker's number, from 1.
     * @param command the child JVM's command line.
     * @param log     where its standard error goes.
     * @return the started worker.
     * @throws IOException when the JVM cannot be started.
     */
    public static WorkerProcess start(final int index, final List<String> command, final Path log) throws IOException
    {
        final ProcessBuilder builder = new ProcessBuilder(command)
            .redirectError(ProcessBuilder.Redirect.to(log.toFile()))
            .redirectOutput(ProcessBuilder.Redirect.PIPE)
            .redirectInput(ProcessBuilder.Redirect.PIPE);
        // The scratch table and the policy its workers publish are the command's own: a broker's FLOODGATE_POLICY
        // in the operator's shell is not theirs to read (mistyped, it killed every worker; found by review).
        builder.environment().remove(Floodgate.POLICY_ENV);
        return new WorkerProcess(index, builder.start(), log);
    }

    private void read()
    {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
            StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = in.readLine()) != null)
            {
                final String[] words = line.split(" ");
                switch (words[0])
                {
                    case "READY" -> ready.countDown();
                    case "PROGRESS" ->
                    {
                        checks = Long.parseLong(words[1]);
                        admitted = Long.parseLong(words[2]);
                    }
                    case "KEY" -> keys.put(words[1] + " " + words[2],
                        new long[] {Long.parseLong(words[3]), Long.parseLong(words[4])});
                    case "HISTO" -> histogram = Histogram.decodeFromCompressedByteBuffer(
                        ByteBuffer.wrap(Base64.getDecoder().decode(words[1])), 0);
                    case "DONE" ->
                    {
                        elapsedNanos = Long.parseLong(words[2]);
                        finalChecks = Long.parseLong(words[1]);
                    }
                    default -> protocolError = "unexpected line from worker " + index + ": " + line;
                }
            }
        }
        catch (final IOException | RuntimeException | DataFormatException ex)
        {
            // the message, not the exception's class: "reading worker 1: java.io.IOException: Stream closed"
            protocolError = "reading worker " + index + "'s report: " + (ex.getMessage() == null ? "malformed" :
                ex.getMessage());
        }
        finally
        {
            ready.countDown();
            done.countDown();
        }
    }

    /**
     * @param deadlineNanos monotonic deadline.
     * @return true when the worker said READY (false when it died or the deadline passed).
     * @throws InterruptedException when interrupted.
     */
    public boolean awaitReady(final long deadlineNanos) throws InterruptedException
    {
        return ready.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS) &&
            process.isAlive() && done.getCount() == 1;
    }

    /**
     * @param startNanos when to start, monotonic.
     * @param endNanos   when to stop, monotonic.
     * @throws IOException when the worker's standard input is closed (it died).
     */
    public void release(final long startNanos, final long endNanos) throws IOException
    {
        final OutputStream in = process.getOutputStream();
        in.write(("GO " + startNanos + " " + endNanos + "\n").getBytes(StandardCharsets.US_ASCII));
        in.flush();
    }

    /**
     * @param deadlineNanos monotonic deadline.
     * @return true when the worker exited with 0 and reported DONE.
     * @throws InterruptedException when interrupted.
     */
    public boolean awaitExit(final long deadlineNanos) throws InterruptedException
    {
        return process.waitFor(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS) &&
            done.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS) &&
            process.exitValue() == 0 && finalChecks >= 0 && protocolError == null;
    }

    /** Kills the worker if it still runs, and waits a little for it to go. */
    public void reap()
    {
        if (process.isAlive())
        {
            process.destroyForcibly();
        }
        try
        {
            process.waitFor(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** @return why the worker failed, for one line of output: exit code, protocol error or its last log line. */
    public String failure()
    {
        final StringBuilder why = new StringBuilder("worker ").append(index);
        if (process.isAlive())
        {
            why.append(" still running");
        }
        else
        {
            why.append(" exited with ").append(process.exitValue());
        }
        if (protocolError != null)
        {
            why.append(", ").append(protocolError);
        }
        try
        {
            final List<String> lines = Files.readAllLines(log);
            for (int i = lines.size() - 1; i >= 0; i--)
            {
                if (!lines.get(i).isBlank())
                {
                    why.append(", last error line: ").append(lines.get(i).trim());
                    break;
                }
            }
        }
        catch (final IOException ignored)
        {
            // no log to quote
        }
        return why.toString();
    }

    /** @return the worker's number, from 1. */
    public int index()
    {
        return index;
    }

    /** @return the worker's pid. */
    public long pid()
    {
        return process.pid();
    }

    /** @return checks so far (progress, updated every 100 ms). */
    public long checksSoFar()
    {
        return finalChecks >= 0 ? finalChecks : checks;
    }

    /** @return admissions so far (progress). */
    public long admittedSoFar()
    {
        return admitted;
    }

    /** @return checks made, after exit. */
    public long checks()
    {
        return finalChecks;
    }

    /** @return how long the worker's threads ran. */
    public long elapsedNanos()
    {
        return elapsedNanos;
    }

    /** @return "action identifier" to {admitted, refused}, after exit. */
    public Map<String, long[]> keys()
    {
        return keys;
    }

    /** @return the latency histogram, or null without {@code --latency}. */
    public Histogram histogram()
    {
        return histogram;
    }
}
