package dev.floodgate;

/**
 * A {@link ManualTicker} that can run an action inside one chosen thread's next read: a check that reads the
 * clock after taking its policy snapshot then holds a snapshot the action made stale, deterministically.
 */
public final class HookedTicker implements Ticker
{
    private final ManualTicker time;
    private volatile Runnable hook;
    private volatile Thread owner;

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
        return time.nanos();
    }

    /** @param action run inside the calling thread's next read, before the read returns. */
    public void onNextRead(final Runnable action)
    {
        owner = Thread.currentThread();
        hook = action;
    }

    /** @return true while an action waits for its read. */
    public boolean armed()
    {
        return hook != null;
    }
}
