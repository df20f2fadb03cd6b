package dev.floodgate.testkit;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a soak's checker JVM admitted, kept so that it survives a SIGKILL: each admission is written as it returns
 * ({@code thread seq series cost start end}, one {@code write} each: the page cache keeps it) to the admissions
 * file, and each call in flight is recorded before it starts in the thread's slot of a mapped file
 * ({@link #SLOT_BYTES}: seq, start, then series and cost of up to two quotas; seq 0 when idle), cleared after its
 * admission is written. A killed child's slot whose seq the admissions file lacks is a call that may have been
 * admitted. The child writes ({@link #SoakLog}); the parent reads ({@link #read}).
 */
public final class SoakLog
{
    public static final int SLOT_BYTES = 48;

    private final FileOutputStream log;
    private final MappedByteBuffer inflight;

    /**
     * @param admissions the admissions file (appended to).
     * @param inflight   the in-flight slots' file.
     * @param threads    how many threads write.
     */
    public SoakLog(final Path admissions, final Path inflight, final int threads) throws IOException
    {
        this.log = new FileOutputStream(admissions.toFile(), true);
        try (FileChannel channel = FileChannel.open(inflight, StandardOpenOption.CREATE, StandardOpenOption.READ,
            StandardOpenOption.WRITE))
        {
            this.inflight = channel.map(FileChannel.MapMode.READ_WRITE, 0, (long) threads * SLOT_BYTES);
        }
    }

    /** Records a call about to start, on up to two quotas ({@code b} -1: one). */
    public void begin(final int thread, final long seq, final long start, final int a, final long costA, final int b,
        final long costB)
    {
        final int slot = thread * SLOT_BYTES;
        inflight.putLong(slot + 8, start);
        inflight.putInt(slot + 16, a);
        inflight.putLong(slot + 24, costA);
        inflight.putInt(slot + 32, b);
        inflight.putLong(slot + 40, costB);
        inflight.putLong(slot, seq);
    }

    /** Writes an admission, one line per quota ({@code b} -1: one). */
    public void admitted(final int thread, final long seq, final int a, final long costA, final int b,
        final long costB, final long start, final long end)
    {
        write(thread + " " + seq + " " + a + " " + costA + " " + start + " " + end + "\n" +
            (b >= 0 ? thread + " " + seq + " " + b + " " + costB + " " + start + " " + end + "\n" : ""));
    }

    /** Clears the thread's slot: its call returned, and its admission, if any, is written. */
    public void end(final int thread)
    {
        inflight.putLong(thread * SLOT_BYTES, 0);
    }

    private synchronized void write(final String lines)
    {
        try
        {
            log.write(lines.getBytes(StandardCharsets.US_ASCII));
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * Adds one child's admissions to {@code calls} (per series), and, when it was killed, its calls in flight as
     * not known to have happened, ending at the kill.
     *
     * @param killedAt when the child was killed, or 0.
     * @return how many calls were in flight at the kill.
     */
    public static long read(final Path admissions, final Path inflight, final int threads, final long killedAt,
        final List<List<SoakCall>> calls) throws IOException
    {
        if (!Files.exists(admissions) || !Files.exists(inflight))
        {
            return 0; // killed before it opened its files: it checked nothing
        }
        final Set<String> written = new HashSet<>();
        for (final String line : Files.readAllLines(admissions, StandardCharsets.US_ASCII))
        {
            final String[] f = line.split(" ");
            if (f.length != 6)
            {
                continue; // a line a SIGKILL cut short: its call's slot is still set
            }
            written.add(f[0] + " " + f[1]);
            calls.get(Integer.parseInt(f[2])).add(new SoakCall(Long.parseLong(f[3]), Long.parseLong(f[4]),
                Long.parseLong(f[5]), true));
        }
        if (killedAt == 0)
        {
            return 0;
        }
        long inFlight = 0;
        // big-endian, as the child mapped it
        final ByteBuffer slots = ByteBuffer.wrap(Files.readAllBytes(inflight));
        for (int t = 0; t < threads && slots.capacity() == threads * SLOT_BYTES; t++)
        {
            final int slot = t * SLOT_BYTES;
            final long seq = slots.getLong(slot);
            if (seq != 0 && !written.contains(t + " " + seq))
            {
                inFlight++;
                calls.get(slots.getInt(slot + 16)).add(new SoakCall(slots.getLong(slot + 24), slots.getLong(slot + 8),
                    killedAt, false));
                if (slots.getInt(slot + 32) >= 0)
                {
                    calls.get(slots.getInt(slot + 32)).add(new SoakCall(slots.getLong(slot + 40),
                        slots.getLong(slot + 8), killedAt, false));
                }
            }
        }
        return inFlight;
    }
}
