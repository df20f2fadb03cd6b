package dev.floodgate;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The table file a configuration names until {@code file} is set ({@link FloodgateConfig#defaultFile()}), and where
 * that path came from. Under {@code /dev/shm} where that is a directory; else under {@code java.io.tmpdir}, which
 * may be relative ({@code -Djava.io.tmpdir=tmp}): that default is refused as any relative file is
 * ({@link ConfigKeys#validateFile}), and the refusal names {@link #origin()}, as the operator never wrote the path.
 *
 * @param path   the default file.
 * @param origin where it came from, e.g. {@code java.io.tmpdir=tmp, as /dev/shm is not a directory}.
 */
record DefaultFile(Path path, String origin)
{
    private static final Path SHM = Path.of("/dev/shm");

    /** @return the default on this host, as its /dev/shm and java.io.tmpdir are now. */
    static DefaultFile onThisHost()
    {
        return of(SHM, System.getProperty("java.io.tmpdir"));
    }

    /**
     * @param shm    the shared-memory directory, {@code /dev/shm} but in a test of a host without it.
     * @param tmpdir the value of {@code java.io.tmpdir}.
     * @return the default file under {@code shm} where that is a directory, else under {@code tmpdir}.
     */
    static DefaultFile of(final Path shm, final String tmpdir)
    {
        if (Files.isDirectory(shm))
        {
            return new DefaultFile(shm.resolve("floodgate").resolve("floodgate.map"), shm + " is a directory");
        }
        return new DefaultFile(Path.of(tmpdir, "floodgate", "floodgate.map"),
            "java.io.tmpdir=" + tmpdir + ", as " + shm + " is not a directory");
    }
}
