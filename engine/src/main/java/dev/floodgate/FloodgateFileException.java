package dev.floodgate;

import java.nio.file.Path;

/** A file that cannot be used as a Floodgate table: the message names the file and the problem. */
public final class FloodgateFileException extends RuntimeException
{
    private static final long serialVersionUID = 1L;

    private final transient Path file;

    /**
     * @param file    the file.
     * @param problem what is wrong with it.
     * @param cause   the underlying failure, or null.
     */
    public FloodgateFileException(final Path file, final String problem, final Throwable cause)
    {
        super(file + ": " + problem, cause);
        this.file = file;
    }

    /** @return the file. */
    public Path file()
    {
        return file;
    }
}
