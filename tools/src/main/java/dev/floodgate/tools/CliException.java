package dev.floodgate.tools;

/**
 * An expected failure: the CLI prints its one-line message, without a stack trace, and exits with its code.
 */
public final class CliException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final int exitCode;

    /**
     * @param exitCode one of {@link ExitCode}.
     * @param message  says what failed and why, on one line.
     */
    public CliException(final int exitCode, final String message)
    {
        super(message, null, false, false);
        this.exitCode = exitCode;
    }

    /** @return the process exit code. */
    public int exitCode()
    {
        return exitCode;
    }
}
