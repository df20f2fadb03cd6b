package dev.floodgate;

import java.util.concurrent.atomic.AtomicLong;

/** A ticker tests move by hand. */
public final class ManualTicker implements Ticker
{
    private final AtomicLong nanos;

    public ManualTicker(final long startNanos)
    {
        this.nanos = new AtomicLong(startNanos);
    }

    @Override
    public long nanos()
    {
        return nanos.get();
    }

    public void advanceNanos(final long delta)
    {
        nanos.addAndGet(delta);
    }

    public void advanceMs(final long ms)
    {
        advanceNanos(ms * 1_000_000L);
    }

    public void set(final long value)
    {
        nanos.set(value);
    }
}
