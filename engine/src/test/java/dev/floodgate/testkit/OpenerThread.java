package dev.floodgate.testkit;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Files;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A broker starting in this JVM beside a rival (a child JVM stopped, slow or building): on a thread of its own named
 * {@code opener}, it opens a {@code Floodgate}, lets the test use it, and keeps which file it attached to (the inode
 * of the config's file once used) or what it threw.
 */
public final class OpenerThread
{
    /** Where an open whose own build failed waits for a rival's table ({@code CreatorTemps.awaitRival}). */
    private static final String RIVAL_WAIT_CLASS = "dev.floodgate.store.CreatorTemps";
    private static final String RIVAL_WAIT_METHOD = "awaitRival";

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

    /**
     * Waits until the opener's own build has failed (no room for it) and it waits for a rival's table, having found
     * the rival building: parked in {@code CreatorTemps.awaitRival} itself, not in something it calls. The premise of
     * a test that then lets the rival finish: a fixed 5 s stood for it, which on a loaded host could run out before
     * the opener had built anything; it then found the rival's table and the test passed without testing.
     *
     * @throws AssertionError when the opener ended first (with what it threw) or is not waiting there within
     *                        {@code seconds}; it is interrupted then (the wait for a rival ends on an interrupt).
     */
    public void awaitWaitingForRival(final long seconds) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true)
        {
            final StackTraceElement[] stack = thread.getStackTrace();
            if (!thread.isAlive())
            {
                throw new AssertionError("the open ended before it waited for the rival's table: " +
                    (failed.get() == null ? "it opened" : "it threw " + failed.get()), failed.get());
            }
            if (parkedInRivalWait(stack))
            {
                return;
            }
            if (System.nanoTime() - deadline > 0)
            {
                thread.interrupt();
                throw new AssertionError("the open was not waiting for the rival's table within " + seconds +
                    " s; its stack: " + Arrays.toString(stack));
            }
            TimeUnit.MILLISECONDS.sleep(5);
        }
    }

    private static boolean parkedInRivalWait(final StackTraceElement[] stack)
    {
        int frame = 0;
        while (frame < stack.length && (stack[frame].getClassName().equals("jdk.internal.misc.Unsafe") ||
            stack[frame].getClassName().equals("java.util.concurrent.locks.LockSupport")))
        {
            frame++;
        }
        return frame > 0 && frame < stack.length && stack[frame].getClassName().equals(RIVAL_WAIT_CLASS) &&
            stack[frame].getMethodName().equals(RIVAL_WAIT_METHOD);
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
