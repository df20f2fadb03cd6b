package dev.floodgate.testkit;

import dev.floodgate.Floodgate;
import dev.floodgate.FloodgateConfig;

import java.nio.file.Path;

/**
 * Runs in its own JVM, started with whatever flags a test chose: opens a table and says {@code OPENED}, or
 * says {@code REFUSED <message>} for the {@link IllegalStateException} that names missing JVM flags.
 *
 * <pre>args: file</pre>
 */
public final class OpenProbe
{
    private OpenProbe()
    {
    }

    public static void main(final String[] args)
    {
        try (Floodgate gate = Floodgate.open(FloodgateConfig.builder().file(Path.of(args[0])).capacity(1_000).build()))
        {
            System.out.println("OPENED");
        }
        catch (final IllegalStateException ex)
        {
            System.out.println("REFUSED " + ex.getMessage());
        }
    }
}
