package dev.floodgate;

/**
 * A {@link ManualTicker} that can run an action inside one chosen thread's next read (or its next read from a named
 * method): a check that reads the clock after taking its policy snapshot then holds a snapshot the action made
 * stale, and a clock read taken before a word it judges meets the word other threads moved on, deterministically.
 */
public final class HookedTicker implements Ticker
{
    private final ManualTicker time;
    private volatile Runnable hook;
    private volatile java.util.function.LongSupplier reading;
    private volatile Thread owner;
    private volatile Thread readingOwner;
    private volatile String readingFrom;
    private volatile Runnable staleHook;
    private volatile Thread staleOwner;
    private volatile String staleFrom;

    public HookedTicker(final ManualTicker time)
    {
        this.time = time;
    }

    @Override
    public long nanos()
    {
        final Runnable stale = staleHook;
        if (stale != null && Thread.currentThread() == staleOwner && calledFrom(staleFrom))
        {
            staleHook = null;
            final long read = time.nanos();
            stale.run();
            return read;
        }
        final Runnable action = hook;
        if (action != null && Thread.currentThread() == owner)
        {
            hook = null; // first, so the action's own reads (a publish reads the clock) do not run it again
            action.run();
        }
        final java.util.function.LongSupplier late = reading;
        if (late != null && Thread.currentThread() == readingOwner && (readingFrom == null || calledFrom(readingFrom)))
        {
            reading = null;
            return late.getAsLong();
        }
        return time.nanos();
    }

    /** @param action run inside the calling thread's next read, before the read returns. */
    public void onNextRead(final Runnable action)
    {
        owner = Thread.currentThread();
        hook = action;
    }

    /**
     * @param thread the thread whose next read returns {@code read}'s value instead of the time: a clock read
     *               that happened earlier than the moment the caller gets it (a thread descheduled after it).
     * @param read   may block, to hold the reader until another thread has moved on.
     */
    public void onNextRead(final Thread thread, final java.util.function.LongSupplier read)
    {
        readingOwner = thread;
        reading = read;
    }

    /**
     * As {@link #onNextRead(Thread, java.util.function.LongSupplier)}, for the thread's next read made from a method
     * named {@code method} (on its stack): the one read of a path that makes others first.
     */
    public void onNextReadFrom(final Thread thread, final String method, final java.util.function.LongSupplier read)
    {
        readingOwner = thread;
        readingFrom = method;
        reading = read;
    }

    /**
     * Runs {@code action} inside the calling thread's next read made from a method whose name starts with
     * {@code method} (on its stack), and returns the time from before the action: a thread descheduled after its
     * clock read, while the action (other threads' checks, the clock moving on) ran.
     */
    public void onNextReadFrom(final String method, final Runnable action)
    {
        staleOwner = Thread.currentThread();
        staleFrom = method;
        staleHook = action;
    }

    /** @return true while an action waits for its read. */
    public boolean armed()
    {
        return hook != null || staleHook != null;
    }

    private static boolean calledFrom(final String method)
    {
        return StackWalker.getInstance().walk(frames -> frames.anyMatch(f -> f.getMethodName().startsWith(method)));
    }

    /** @return what {@code call} answered on a thread of its own, which this waits for. */
    public static long onOtherThread(final java.util.function.LongSupplier call)
    {
        final java.util.concurrent.atomic.AtomicLong result =
            new java.util.concurrent.atomic.AtomicLong(Long.MIN_VALUE);
        final Thread t = new Thread(() -> result.set(call.getAsLong()));
        t.start();
        try
        {
            t.join();
        }
        catch (final InterruptedException ex)
        {
            throw new AssertionError(ex);
        }
        return result.get();
    }
}
