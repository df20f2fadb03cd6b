package dev.floodgate.testkit;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Files;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A broker starting in this JVM beside a rival (a child JVM stopped, slow or building): on a thread of its own named
 * {@code opener}, it opens a {@code Floodgate}, lets the test use it, and keeps which file it attached to (the inode
 * of the config's file once used) or what it threw.
 */
public final class OpenerThread
{
    /** What the opener does with its open gate. */
    @FunctionalInterface
    public interface Use
    {
        void accept(Floodgate gate) throws Exception;
    }

    private final Thread thread;
    private final AtomicReference<Throwable> failed = new AtomicReference<>();
    private final AtomicReference<Object> attached = new AtomicReference<>();

    private OpenerThread(final FloodgateConfig config, final Use use)
    {
        this.thread = new Thread(() ->
        {
            try (Floodgate gate = Floodgate.open(config))
            {
                use.accept(gate);
                attached.set(Files.getAttribute(config.file(), "unix:ino"));
            }
            catch (final Throwable ex)
            {
                failed.set(ex);
            }
        }, "opener");
    }

    /** Starts opening {@code config}'s table on a new thread, then {@code use} with the gate. */
    public static OpenerThread start(final FloodgateConfig config, final Use use)
    {
        final OpenerThread opener = new OpenerThread(config, use);
        opener.thread.start();
        return opener;
    }

    /** Waits at most {@code millis} for the opener to end. */
    public void join(final long millis) throws InterruptedException
    {
        thread.join(millis);
    }

    /** @return whether it still runs (opening, or using the gate). */
    public boolean isAlive()
    {
        return thread.isAlive();
    }

    /** Interrupts it (a wait for a lock ends on an interrupt). */
    public void interrupt()
    {
        thread.interrupt();
    }

    /** @return what the open or the use threw, or null. */
    public Throwable failure()
    {
        return failed.get();
    }

    /** @return the inode ({@code unix:ino}) of the config's file after the use, or null before then. */
    public Object attachedInode()
    {
        return attached.get();
    }
}
