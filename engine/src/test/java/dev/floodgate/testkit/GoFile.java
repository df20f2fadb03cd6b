package dev.floodgate.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/** The release signal of child JVMs: the parent creates the file once every child has printed READY. */
public final class GoFile
{
    private GoFile()
    {
    }

    /** @param go the file to wait for; polling it is the release signal itself. */
    public static void await(final Path go)
    {
        while (!Files.exists(go))
        {
            LockSupport.parkNanos(1_000_000L);
        }
    }
}
