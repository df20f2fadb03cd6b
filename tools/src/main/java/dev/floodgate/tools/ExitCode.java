package dev.floodgate.tools;

/**
 * The CLI's exit codes, a contract with scripts: 0 success, 1 a refused operation, 2 a usage error, 3 a
 * missing, unreadable or foreign file.
 */
public final class ExitCode
{
    /** The command did what was asked. */
    public static final int OK = 0;
    /** The command ran but refused, or found a result that is wrong (e.g. demo totals that miss the quota). */
    public static final int REFUSED = 1;
    /** The command line was malformed: unknown option, bad value, unknown action. */
    public static final int USAGE = 2;
    /** The table file is missing, unreadable or not a Floodgate table. */
    public static final int FILE = 3;

    private ExitCode()
    {
    }
}
