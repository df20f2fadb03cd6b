package dev.floodgate.tools.load;

/** What a caller learns of the run's phases, e.g. to read a cluster's figures over exactly the run. */
public interface RunObserver
{
    /** Does nothing. */
    RunObserver NONE = new RunObserver()
    {
    };

    /**
     * Every worker has its start time.
     *
     * @param startNanos when the workers start, monotonic.
     * @param endNanos   when they stop, monotonic.
     */
    default void released(final long startNanos, final long endNanos)
    {
    }

    /** The run's end time has passed (the workers may still be reporting). */
    default void ended()
    {
    }

    /**
     * Every worker is gone: the run ended or failed, or the JVM is stopping (then from the shutdown hook, after
     * the workers were reaped). Called once.
     */
    default void stopped()
    {
    }
}
