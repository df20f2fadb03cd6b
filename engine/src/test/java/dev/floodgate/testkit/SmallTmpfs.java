package dev.floodgate.testkit;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A tmpfs of a few megabytes mounted at {@code mnt} in a test's directory, for a file system with room for one table
 * and not two, or none left at all (a container's 64 MB {@code /dev/shm}). Mounting needs root: where it fails the
 * test is skipped. Closing it unmounts it (lazily, so a child JVM still mapping a file there does not keep it); the
 * test's temporary directory removes the empty mount point.
 */
public final class SmallTmpfs implements AutoCloseable
{
    private final Path mount;

    private SmallTmpfs(final Path mount)
    {
        this.mount = mount;
    }

    /**
     * @param dir       the test's temporary directory; the mount point {@code mnt} is made in it.
     * @param megabytes the file system's size.
     * @return the mounted file system.
     */
    public static SmallTmpfs mount(final Path dir, final int megabytes) throws Exception
    {
        final Path mount = Files.createDirectory(dir.resolve("mnt"));
        assumeTrue(Command.succeeds("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m", "tmpfs", mount.toString()),
            "no tmpfs mount here");
        return new SmallTmpfs(mount);
    }

    /** @return {@code other} below the mount point. */
    public Path resolve(final String other)
    {
        return mount.resolve(other);
    }

    @Override
    public void close() throws Exception
    {
        Command.succeeds("umount", "-l", mount.toString());
    }
}
