package dev.floodgate.store;

/**
 * A table operation could not take the {@link TableGuard} (or a segment lock) in time because a live process
 * held it. Checks catch it and degrade per action; other operations report it.
 */
public final class TableBusyException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    /** @param message what was busy, and who held it. */
    public TableBusyException(final String message)
    {
        super(message);
    }
}
