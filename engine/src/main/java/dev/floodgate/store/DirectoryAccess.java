package dev.floodgate.store;

import dev.floodgate.FloodgateFileException;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The table's directory: made when absent, and, when a table or its lock file cannot be made, which directory a
 * user must fix: the nearest existing directory this user may not write, rather than a file or a missing directory
 * under it that the user never named. Stateless.
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

    /**
     * Makes the table's directory when absent, as a new table's permissions say.
     *
     * @throws FloodgateFileException naming the directory above it that this user may not write, when that is why it
     * cannot be made (the user never named the missing directory under it, nor its file).
     */
    static void makeDirectory(final Path file, final boolean groupReadable)
    {
        final Path dir = file.toAbsolutePath().getParent();
        try
        {
            if (!Files.isDirectory(dir))
            {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString(groupReadable ? "rwxr-x---" : "rwx------")));
            }
        }
        catch (final IOException ex)
        {
            final Path denied = isDenial(ex) ? unwritableAncestor(dir) : null;
            if (denied != null)
            {
                throw new FloodgateFileException(denied, "not writable by this user (the table's directory, " +
                    denied.relativize(dir) + ", is made there)", ex);
            }
            // a directory to be made is a file (--file t.map/x.map): the exception's message is its path alone
            throw new FloodgateFileException(file, "cannot be created: " + (ex instanceof FileAlreadyExistsException ?
                ((FileAlreadyExistsException)ex).getFile() + " is not a directory" : TableCreator.describe(ex)), ex);
        }
    }
}
