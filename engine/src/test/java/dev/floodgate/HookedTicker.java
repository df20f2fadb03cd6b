package dev.floodgate;

/**
 * A {@link ManualTicker} that can run an action inside one chosen thread's next read: a check that reads the
 * clock after taking its policy snapshot then holds a snapshot the action made stale, deterministically.
 */
public final class HookedTicker implements Ticker
{
    private final ManualTicker time;
    private volatile Runnable hook;
    private volatile java.util.function.LongSupplier reading;
    private volatile Thread owner;
    private volatile Thread readingOwner;

    public HookedTicker(final ManualTicker time)
    {
        this.time = time;
    }

    @Override
    public long nanos()
    {
        final Runnable action = hook;
        if (action != null && Thread.currentThread() == owner)
        {
            hook = null; // first, so the action's own reads (a publish reads the clock) do not run it again
            action.run();
        }
        final java.util.function.LongSupplier late = reading;
        if (late != null && Thread.currentThread() == readingOwner)
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

    /** @return true while an action waits for its read. */
    public boolean armed()
    {
        return hook != null;
    }
}
