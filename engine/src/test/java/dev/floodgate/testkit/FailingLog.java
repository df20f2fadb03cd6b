package dev.floodgate.testkit;

import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * A logging handler on the engine's logger that throws while it is installed, for the messages that hold a given
 * text: a failing handler, or an {@code OutOfMemoryError} while a message is built, as a log call in production
 * may meet. Close it to remove it.
 */
public final class FailingLog implements AutoCloseable
{
    private final Logger logger = Logger.getLogger("dev.floodgate");
    private final Handler handler;

    private FailingLog(final String text)
    {
        this.handler = new Handler()
        {
            @Override
            public void publish(final LogRecord record)
            {
                if (String.valueOf(record.getMessage()).contains(text))
                {
                    throw new IllegalStateException("log handler failed");
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
        logger.addHandler(handler);
    }

    /** @param text part of the messages whose logging throws. @return the installed handler. */
    public static FailingLog on(final String text)
    {
        return new FailingLog(text);
    }

    @Override
    public void close()
    {
        logger.removeHandler(handler);
    }
}
