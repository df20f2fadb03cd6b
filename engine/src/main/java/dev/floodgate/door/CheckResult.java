package dev.floodgate.door;

/**
 * The two results of a check that are not a retry-after. The doors own them so that they never depend on the
 * facade; {@code CheckResult.ADMITTED} and {@code CheckResult.NEVER} re-export these values.
 */
public final class CheckResult
{
    /** An admitted check. */
    public static final long ADMITTED = 0;
    /** A charge whose cost exceeds the whole limit: no wait makes it succeed. */
    public static final long NEVER = Long.MAX_VALUE;

    private CheckResult()
    {
    }
}
