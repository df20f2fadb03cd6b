package dev.floodgate.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

/**
 * The kernel's boot id. Monotonic clock readings restart at boot, so a file written under another boot id
 * holds times that mean nothing now.
 *
 * @param high first 64 bits.
 * @param low  last 64 bits.
 */
public record BootId(long high, long low)
{
    private static final Path SOURCE = Path.of("/proc/sys/kernel/random/boot_id");

    /**
     * @return this host's current boot id.
     * @throws IllegalStateException where the kernel does not provide one (Floodgate needs Linux).
     */
    public static BootId current()
    {
        try
        {
            final UUID uuid = UUID.fromString(Files.readString(SOURCE).trim());
            return new BootId(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits());
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            throw new IllegalStateException("cannot read the host's boot id from " + SOURCE +
                ": Floodgate needs Linux, whose CLOCK_MONOTONIC every process shares", ex);
        }
    }

    @Override
    public String toString()
    {
        return new UUID(high, low).toString();
    }
}
