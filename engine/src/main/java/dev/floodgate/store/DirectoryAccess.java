package dev.floodgate.store;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which directory a user must fix when a table or its lock file cannot be made: the nearest existing directory
 * this user may not write, rather than a file or a missing directory under it that the user never named.
 * Stateless.
 */
final class DirectoryAccess
{
    private DirectoryAccess()
    {
    }

    /**
     * @param ex a failure to make a file or directory.
     * @return true when the file system refused this user: EACCES, or EPERM (an immutable directory, which stops
     * root too).
     */
    static boolean isDenial(final IOException ex)
    {
        return ex instanceof AccessDeniedException ||
            ex instanceof FileSystemException fs && String.valueOf(fs.getReason()).contains("not permitted");
    }

    /**
     * @param path a path to be made.
     * @return the nearest existing directory above {@code path} when this user may not write it; null when there is
     * none, or this user may write it (then the denial is somewhere else).
     */
    static Path unwritableAncestor(final Path path)
    {
        Path dir = path.toAbsolutePath().getParent();
        while (dir != null && !Files.exists(dir))
        {
            dir = dir.getParent();
        }
        return dir != null && Files.isDirectory(dir) && !Files.isWritable(dir) ? dir : null;
    }
}
