package dev.floodgate.testkit;

import java.text.MessageFormat;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Records, while installed, the warnings (and worse) logged on the engine's logger, formatted as an operator reads
 * them. Close it to remove it.
 */
public final class LoggedWarnings implements AutoCloseable
{
    private final Logger logger = Logger.getLogger("dev.floodgate");
    private final List<String> warnings = new ArrayList<>();
    private final Handler handler = new Handler()
    {
        @Override
        public void publish(final LogRecord record)
        {
            if (record.getLevel().intValue() >= Level.WARNING.intValue())
            {
                final String text = record.getParameters() == null ? record.getMessage() :
                    MessageFormat.format(record.getMessage(), record.getParameters());
                synchronized (warnings)
                {
                    warnings.add(text);
                }
            }
        }

        @Override
        public void flush()
        {
        }

        @Override
        public void close()
        {
        }
    };

    private LoggedWarnings()
    {
        logger.addHandler(handler);
    }

    /** @return a recorder, installed. */
    public static LoggedWarnings record()
    {
        return new LoggedWarnings();
    }

    /** @return the warnings logged so far, in order. */
    public List<String> warnings()
    {
        synchronized (warnings)
        {
            return List.copyOf(warnings);
        }
    }

    @Override
    public void close()
    {
        logger.removeHandler(handler);
    }
}
