package dev.floodgate;

/**
 * A table operation could not take the table guard (or a segment lock) in time because a live process held
 * it. Checks catch it and degrade per action; other operations ({@link Floodgate#reset}, {@link Floodgate#cleanup},
 * {@link Floodgate#reconfigure}, opening a file whose guard a stopped process holds) throw it.
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
