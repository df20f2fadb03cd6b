package dev.floodgate.store;

import java.io.IOException;

/** An action that may throw {@link IOException}: what runs under a lock file's byte lock. */
@FunctionalInterface
public interface IoAction
{
    /** @throws IOException as it may. */
    void run() throws IOException;
}
