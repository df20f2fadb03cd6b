package dev.floodgate;

import dev.floodgate.door.Doors;
import dev.floodgate.door.HeldQuota;
import dev.floodgate.door.Probes;

import java.lang.ref.Reference;
import java.nio.file.Path;
import java.util.List;

/**
 * What every call of a {@link Floodgate} and of its {@link Quota} handles passes on its way to the file: the
 * closed test (every call but {@code config()}), the off switch (a check of a switched-off engine is admitted
 * here without a look at the file) and the reachability fence that ends every check and probe.
 *
 * <p>The fence is what keeps the file mapped under a check (why close cannot unmap: {@link Floodgate#close}).
 * The doorkeeper owns the {@link Attachment}, whose cleaner unmaps the file once the doorkeeper is unreachable;
 * its {@code Floodgate} and handles hold it, and, while open, so do the background threads. Thread-safe;
 * {@link #close} detaches once.
 */
final class Doorkeeper
{
    private final Path file;
    private final boolean enabled;
    private final Attachment attachment;
    /** The attachment's, held here too: a check reaches the doors in one load. */
    private final Doors doors;
    private volatile boolean closed;

    /** Maps the file as {@link Floodgate#open} ({@code adopting}: {@link Floodgate#openAdopting}) says. */
    Doorkeeper(final FloodgateConfig config, final boolean adopting)
    {
        this.file = config.file();
        this.enabled = config.enabled();
        this.attachment = Attachment.open(this, config, adopting);
        this.doors = attachment.doors();
    }

    /** A disabled engine admits without the table, but refuses what an enabled one would refuse as an argument. */
    private static long disabled(final CharSequence identifier, final Action action)
    {
        Arguments.requireKey(identifier, action);
        return Floodgate.ADMITTED;
    }

    /** Door 1 for {@link Floodgate#checkLimit}, its arguments already checked. */
    long checkBucket(final CharSequence identifier, final Action action, final long cost)
    {
        try
        {
            final Doors doors = openDoors(); // closed: throws, switched off or not
            return enabled ? doors.checkBucket(identifier, action, cost) : disabled(identifier, action);
        }
        finally
        {
            Reference.reachabilityFence(this); // keeps the file mapped until this check is done
        }
    }

    /** Door 1 for a {@link Quota} handle, through its own slots; the cost already checked. */
    long checkBucket(final HeldQuota held, final long cost)
    {
        try
        {
            final Doors doors = openDoors();
            return enabled ? doors.checkBucket(held, cost) : Floodgate.ADMITTED;
        }
        finally
        {
            Reference.reachabilityFence(this);
        }
    }

    /** Door 2 for {@link Floodgate#checkLimitInCaller}, its arguments already checked. */
    long checkWindow(final CharSequence identifier, final Action action, final long cost)
    {
        try
        {
            final Doors doors = openDoors();
            return enabled ? doors.checkWindow(identifier, action, cost) : disabled(identifier, action);
        }
        finally
        {
            Reference.reachabilityFence(this);
        }
    }

    /** Door 2 for a {@link Quota} handle, through its own slots; the cost already checked. */
    long checkWindow(final HeldQuota held, final long cost)
    {
        try
        {
            final Doors doors = openDoors();
            return enabled ? doors.checkWindow(held, cost) : Floodgate.ADMITTED;
        }
        finally
        {
            Reference.reachabilityFence(this);
        }
    }

    /** For {@link Floodgate#charge}, the charges already checked. */
    long charge(final List<Charge> charges)
    {
        try
        {
            final Doors doors = openDoors();
            return enabled ? doors.charge(charges) : Floodgate.ADMITTED;
        }
        finally
        {
            Reference.reachabilityFence(this);
        }
    }

    /** For {@link Floodgate#probe} and a handle's, the arguments already checked. */
    Probe probeBucket(final CharSequence identifier, final Action action)
    {
        try
        {
            final Doors doors = openDoors();
            return enabled ? Probes.bucket(doors, identifier, action) : new Probe(0, Long.MAX_VALUE, 0, 0);
        }
        finally
        {
            Reference.reachabilityFence(this);
        }
    }

    /** For {@link Floodgate#probeInCaller} and a handle's, the arguments already checked. */
    Probe probeWindow(final CharSequence identifier, final Action action)
    {
        try
        {
            final Doors doors = openDoors();
            return enabled ? Probes.window(doors, identifier, action) : new Probe(0, Long.MAX_VALUE, 0, 0);
        }
        finally
        {
            Reference.reachabilityFence(this);
        }
    }

    /** For {@link Floodgate#quota}, the arguments already checked: a handle whose calls pass here too. */
    Quota quota(final CharSequence identifier, final Action action)
    {
        ensureOpen();
        return new FloodgateQuota(this, new HeldQuota(identifier, action));
    }

    /**
     * Runs an operator's call (stats, reset, cleanup, a publish...) on the attachment, keeping this doorkeeper, and
     * so the file's mapping, reachable to its end as every check does. Compiled frames stop referencing it once
     * they have loaded what they read through: {@code stats()} reads the file holding only the table, so a
     * {@link Floodgate} closed and dropped by another thread meanwhile would let the cleaner unmap the file under
     * it. (Calls that reach the doors or the janitor hold the doorkeeper through the background agent anyway.)
     *
     * @param call the call; once closed, {@link IllegalStateException} is thrown instead.
     * @return what the call returns.
     */
    <T> T operate(final java.util.function.Function<Attachment, T> call)
    {
        try
        {
            ensureOpen();
            return call.apply(attachment);
        }
        finally
        {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * For {@link Floodgate#close}: every call from now on throws; the first close detaches, and a close at the same
     * time returns once that detach has (it returned at once, the first still detaching, its janitor pass in flight:
     * found by review, ConcurrentCloseTest). Nothing else takes this monitor, and the detach takes none a thread it
     * waits for holds.
     */
    synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        attachment.detach();
    }

    private Doors openDoors()
    {
        ensureOpen();
        return doors;
    }

    private void ensureOpen()
    {
        if (closed)
        {
            throw new IllegalStateException("Floodgate on " + file + " is closed");
        }
    }
}
