package dev.floodgate;

/**
 * A source of monotonic time in nanoseconds. Every process on the host must read the same clock, because
 * quota state written by one JVM is compared against time read by another: the default is
 * {@link System#nanoTime()}, which on Linux reads {@code CLOCK_MONOTONIC}. Tests inject a manual ticker.
 */
@FunctionalInterface
public interface Ticker
{
    /** @return the current monotonic time in nanoseconds; only differences between readings are meaningful. */
    long nanos();

    /** @return the host's monotonic clock. */
    static Ticker system()
    {
        return SystemTicker.INSTANCE;
    }
}

enum SystemTicker implements Ticker
{
    INSTANCE;

    @Override
    public long nanos()
    {
        return System.nanoTime();
    }
}
