package dev.floodgate.store;

/** The table cannot take another entry. Checks catch it and apply the table-full policy; it never escapes. */
public final class TableFullException extends Exception
{
    private static final long serialVersionUID = 1L;

    /** @param message what was full. */
    public TableFullException(final String message)
    {
        super(message, null, false, false);
    }
}
