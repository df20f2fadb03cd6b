package dev.floodgate.tools;

import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Hides the engine's log records (java.util.logging, where {@link System.Logger} goes) while a command runs,
 * unless {@code --verbose}: a broker's log lines, such as "this JVM's configuration differs", would come
 * before a command's output and its one-line error, and they describe a broker, not the command.
 */
final class Logs implements AutoCloseable
{
    private final Logger root = Logger.getLogger("");
    private final Level before = root.getLevel();

    private Logs(final boolean verbose)
    {
        if (!verbose)
        {
            root.setLevel(Level.OFF);
        }
    }

    /**
     * @param verbose true to let log records through.
     * @return closing restores the logging level, for a CLI run inside a longer-lived JVM (tests).
     */
    static Logs during(final boolean verbose)
    {
        return new Logs(verbose);
    }

    @Override
    public void close()
    {
        root.setLevel(before);
    }
}
